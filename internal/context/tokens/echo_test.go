package tokens

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestEchoIsCounted: the vendor fields an assistant message sends back
// (a call's signature, the message's reasoning_details) are priced like
// its text: a long reasoning sent back in reasoning_details is input.
func TestEchoIsCounted(t *testing.T) {
	details := `{"reasoning_details":[{"type":"reasoning.text","text":"` + strings.Repeat("think ", 2000) + `"}]}`
	sig := `{"extra_content":{"google":{"thought_signature":"` + strings.Repeat("A", 400) + `"}}}`
	bare := message.Entry{Message: message.Message{ID: "a", Role: message.RoleAssistant}, Parts: []message.Part{
		{Type: message.PartText, Text: "reading"},
		{Type: message.PartTool, Tool: &message.ToolState{CallID: "c1", Name: "read", Input: "{}", Status: message.ToolCompleted, Output: "x"}},
		{Type: message.PartStepFinish, Step: &message.StepState{}},
	}}
	echoed := bare
	echoed.Parts = []message.Part{bare.Parts[0], bare.Parts[1], bare.Parts[2]}
	tool := *bare.Parts[1].Tool
	tool.Echo = json.RawMessage(sig)
	echoed.Parts[1].Tool = &tool
	echoed.Parts[2].Step = &message.StepState{Echo: json.RawMessage(details)}
	est := Chars{}
	got := EstimateEntries([]message.Entry{echoed}, est) - EstimateEntries([]message.Entry{bare}, est)
	if want := int64(est.Count(sig) + est.Count(details)); got != want {
		t.Errorf("the echo adds %d tokens, want %d", got, want)
	}
	c := CostOf(&echoed, est)
	if p := c.Price(1, false); p != EstimateEntries([]message.Entry{echoed}, est) {
		t.Errorf("CostOf prices %d, EstimateEntries %d", p, EstimateEntries([]message.Entry{echoed}, est))
	}
}
