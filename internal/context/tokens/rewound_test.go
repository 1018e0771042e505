package tokens

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestRewoundIsNotVisibleNorCounted: messages a rewind took back are
// neither sent nor counted; clearing the mark (a redo) brings them back.
func TestRewoundIsNotVisibleNorCounted(t *testing.T) {
	entry := func(id string, role message.Role, text, rewind string) message.Entry {
		return message.Entry{
			Message: message.Message{ID: id, Role: role, RewindID: rewind},
			Parts:   []message.Part{{Type: message.PartText, Text: text}},
		}
	}
	h := []message.Entry{
		entry("01", message.RoleUser, "first question", ""),
		entry("02", message.RoleAssistant, "first answer", ""),
		entry("03", message.RoleUser, "a long second question that was taken back", "R"),
		entry("04", message.RoleAssistant, "a long second answer that was taken back", "R"),
	}
	v := VisibleHistory(h).Entries()
	if len(v) != 2 || v[1].Message.ID != "02" {
		t.Fatalf("visible = %+v, want the first two", v)
	}
	with := EstimateEntries(VisibleHistory(h[:2]).Entries(), Chars{})
	if got := EstimateEntries(VisibleHistory(h).Entries(), Chars{}); got != with {
		t.Errorf("estimate with rewound messages = %d, want %d", got, with)
	}
	h[2].Message.RewindID, h[3].Message.RewindID = "", ""
	if n := VisibleHistory(h).Len(); n != 4 {
		t.Errorf("after redo %d visible, want 4", n)
	}
}
