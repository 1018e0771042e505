package loop

import (
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestDuplicateToolCallIDsAreRenumbered: two calls of one step that carry
// the same id are both run, stored and sent back under distinct ids, each
// with its own result (issue 11.14).
func TestDuplicateToolCallIDsAreRenumbered(t *testing.T) {
	h := newHarness(t,
		pt.ToolCalls(
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo first"}`},
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo second"}`},
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo third"}`},
		),
		pt.Text("Done."),
	)
	if res := h.turn("run them"); res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	seen := map[string]bool{}
	var ids []string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				t.Errorf("tool call id %q sent twice", tc.ID)
			}
			seen[tc.ID] = true
			ids = append(ids, tc.ID)
		}
	}
	if len(ids) != 3 || ids[0] != "call_same" {
		t.Fatalf("ids = %q, want three with the first unchanged", ids)
	}
	var outs []string
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			outs = append(outs, strings.TrimSpace(m.Content))
		}
	}
	if len(outs) != 3 || !strings.Contains(outs[0], "first") || !strings.Contains(outs[1], "second") || !strings.Contains(outs[2], "third") {
		t.Errorf("results = %q", outs)
	}
}
