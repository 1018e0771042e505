package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/recall"
	"github.com/ctxloop/agent/internal/storage"
)

// TestRecallRefFitsTheOutputNotJustItsHeader: in a 16K window already
// half full, recall{ref} of a 20 KB output (one long line, as JSON is)
// gives the model the output's head and tail and where the rest is, never
// only the header and the call's input (issue 27 item 6).
func TestRecallRefFitsTheOutputNotJustItsHeader(t *testing.T) {
	const window = 16384
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "sim-16k"
		c.Models["sim-16k"] = config.ModelInfo{ContextWindow: window, MaxOutput: 4096}
	})
	ctx := context.Background()
	sid := h.r.Session().ID
	output := "HEAD_MARK " + strings.Repeat("{\"k\":\"value\"},", 1450) + " TAIL_MARK"
	old := storage.Entry{
		Message: message.Message{Role: message.RoleAssistant},
		Parts: []message.Part{{Type: message.PartTool, Tool: &message.ToolState{CallID: "call_api", Name: "bash",
			Status: message.ToolCompleted, Input: `{"command":"curl -s api/items"}`, Output: output, CompactedAt: time.Unix(1, 0)}}},
	}
	if err := h.store.ImportHistory(ctx, sid, []storage.Entry{old}); err != nil {
		t.Fatal(err)
	}
	ref := old.Parts[0].ID
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		last := msgs[len(msgs)-1]
		switch {
		case last.Role == openai.ChatMessageRoleTool:
			return pt.Text("got it")
		case last.Content == "fetch":
			return pt.ToolCall("call_fetch", recall.Name, mustJSON(map[string]any{"ref": ref}))
		}
		return pt.Text(strings.Repeat("a long answer that fills the window ", 700)) // ≈6K tokens
	})
	h.mustTurn("fill")
	h.mustTurn("fetch")
	reqs := h.srv.Requests()
	final := reqs[len(reqs)-1].Chat.Messages
	got := final[len(final)-1]
	if got.ToolCallID != "call_fetch" {
		t.Fatalf("last message %+v, want the recall result", got)
	}
	if !strings.Contains(got.Content, "HEAD_MARK") || !strings.Contains(got.Content, "TAIL_MARK") || !strings.Contains(got.Content, "offset=") {
		t.Errorf("recall{ref} result (%d bytes) lacks the output's head, tail or how to read the rest:\n%.600s\n…\n%s",
			len(got.Content), got.Content, lastN(got.Content, 400))
	}
	if s := h.r.Reading(); s.Total > s.Window-s.OutputReserve {
		t.Errorf("request total %d over the usable window %d", s.Total, s.Window-s.OutputReserve)
	}
}
