package tui

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestCompactUndoInTheChat: /compact undo after a compaction sends the
// summarised turns again (the 1M-token gpt-4.1 has room), and a second
// one says there is nothing left to undo.
func TestCompactUndoInTheChat(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		if strings.HasPrefix(msgs[len(msgs)-1].Content, "Summarise the conversation above") {
			return pt.Text("## Goal\nShip it.\n\n## Next steps\nNone.")
		}
		return pt.Text("ok " + strings.Repeat("words ", 300))
	})
	for i, q := range []string{"first question", "second", "third"} {
		h.typeText(q)
		h.key("enter")
		h.waitFor("the turn", func(m *Model) bool { return idle(m) && steps(h.srv) == i+1 })
	}
	h.typeText("/compact")
	h.key("enter")
	h.waitFor("the compaction", func(m *Model) bool { return !m.compacting && len(h.srv.Requests()) >= 4 })
	h.typeText("/compact undo")
	h.key("enter")
	h.waitScreen("compaction undone")
	h.typeText("/compact undo")
	h.key("enter")
	h.waitScreen("nothing to undo")
}
