package tokens

import (
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestVisibleHistorySkipsUndoneSummaries: a summary whose compaction was
// undone is not sent and is no boundary; an older summary in force still
// is.
func TestVisibleHistorySkipsUndoneSummaries(t *testing.T) {
	user := func(id, text string) message.Entry {
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleUser},
			Parts: []message.Part{{Type: message.PartText, Text: text}}}
	}
	marker := func(id, summaryID string, undone bool) message.Entry {
		c := &message.CompactionState{SummaryID: summaryID, Outcome: message.CompactionSummary}
		if undone {
			c.UndoneAt = time.Now()
		}
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleUser, Synthetic: true},
			Parts: []message.Part{{Type: message.PartCompaction, Compaction: c}}}
	}
	summary := func(id string) message.Entry {
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleAssistant, Summary: true},
			Parts: []message.Part{{Type: message.PartText, Text: "summary " + id}}}
	}
	ids := func(es []message.Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Message.ID)
		}
		return out
	}
	h := []message.Entry{user("01", "a"), marker("02", "03", false), summary("03"), user("04", "b"),
		marker("05", "06", true), summary("06"), user("07", "c")}
	v := VisibleHistory(h)
	if v.Summary == nil || v.Summary.Message.ID != "03" {
		t.Fatalf("summary in force = %+v, want 03", v.Summary)
	}
	if got := ids(v.Entries()); len(got) != 3 || got[0] != "03" || got[1] != "04" || got[2] != "07" {
		t.Errorf("sent %v, want [03 04 07]", got)
	}
	h[1] = marker("02", "03", true)
	if got := ids(VisibleHistory(h).Entries()); len(got) != 3 || got[0] != "01" || got[1] != "04" || got[2] != "07" {
		t.Errorf("with both undone, sent %v, want [01 04 07]", got)
	}
}
