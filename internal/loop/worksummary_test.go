package loop

import (
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestToModelMessagesNeverClearsSubagentReports: a task result an older
// binary marked compacted is sent whole, never as the cleared placeholder;
// a plain output marked the same is cleared.
func TestToModelMessagesNeverClearsSubagentReports(t *testing.T) {
	at := time.Unix(1, 0)
	hist := []message.Entry{
		{Message: message.Message{ID: "01", Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartText, Text: "go"}}},
		{Message: message.Message{ID: "02", Role: message.RoleAssistant}, Parts: []message.Part{
			{Type: message.PartTool, Tool: &message.ToolState{CallID: "t", Name: "task", Status: message.ToolCompleted,
				Input: `{"description":"d","prompt":"p"}`, Output: "the subagent's report", CompactedAt: at}},
			{Type: message.PartTool, Tool: &message.ToolState{CallID: "r", Name: "read", Status: message.ToolCompleted,
				Input: `{"path":"x"}`, Output: "file text", CompactedAt: at}},
		}},
	}
	got := map[string]string{}
	for _, m := range ToModelMessages(hist, ConvertOptions{}) {
		if m.Role == "tool" {
			got[m.ToolCallID] = m.Content
		}
	}
	if got["t"] != "the subagent's report" || got["r"] != message.ClearedOutput {
		t.Errorf("tool results sent: %q; want the task report whole and the read cleared", got)
	}
}
