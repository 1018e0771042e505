package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// An answer the provider stopped mid-way with an error chunk carrying usage
// (OpenRouter) was billed: the failed step's message and the session count
// it.
func TestMidStreamErrorUsageIsRecorded(t *testing.T) {
	h := newHarness(t, pt.Reply(
		pt.TextChunk("The first half"),
		pt.JSONChunk(`{"id":"g","object":"chat.completion.chunk","error":{"code":400,"message":"Provider returned error"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"usage":{"prompt_tokens":1200,"completion_tokens":40,"total_tokens":1240}}`),
	))
	res := h.turn("hi")
	if res.Err == nil || !strings.Contains(res.Err.Error(), "stopped mid-answer") {
		t.Fatalf("err = %v, want the stream stopped mid-answer", res.Err)
	}
	want := message.Usage{Input: 1200, Output: 40}
	var failed *message.Message
	for _, e := range h.r.History() {
		if e.Message.Role == message.RoleAssistant {
			failed = &e.Message
		}
	}
	if failed == nil || failed.Usage != want || failed.CostUSD <= 0 {
		t.Errorf("failed step's message = %+v, want usage %+v and a cost", failed, want)
	}
	sess, err := h.store.GetSession(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Usage.Input != want.Input || sess.Usage.Output != want.Output {
		t.Errorf("session usage %+v, want %+v", sess.Usage, want)
	}
	if mem := h.r.Session().Usage; mem != sess.Usage {
		t.Errorf("session usage in memory %+v, stored %+v", mem, sess.Usage)
	}
}

// The step request caps the output at the model's limit (gpt-4.1: 32768),
// so a runaway answer ends at the server.
func TestStepRequestSendsMaxTokens(t *testing.T) {
	h := newHarness(t, pt.Text("ok"))
	if res := h.turn("hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["max_tokens"] != float64(32768) {
		t.Errorf("max_tokens = %v, want gpt-4.1's output limit 32768", body["max_tokens"])
	}
}
