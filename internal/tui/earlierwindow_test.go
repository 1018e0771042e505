package tui

import (
	"context"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestEarlierRowAboveACompactedWindow: a session whose runner holds only
// the window after a compaction (fewer messages than the chat opens
// with) still shows the row of earlier messages, for what lies before
// the window is stored.
func TestEarlierRowAboveACompactedWindow(t *testing.T) {
	ctx := context.Background()
	s := newBenchSession(t, 0)
	h := benchTurns(30)
	h = append(h,
		message.Entry{Message: message.Message{Role: message.RoleUser, Synthetic: true},
			Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{}}}},
		message.Entry{Message: message.Message{Role: message.RoleAssistant, Summary: true, FinishReason: "stop"},
			Parts: []message.Part{{Type: message.PartText, Text: "summary"}}})
	h = append(h, benchTurns(5)...)
	for i := range h {
		h[i].Message.ID = message.NewID()
		if h[i].Message.Summary {
			h[i-1].Parts[0].Compaction.SummaryID = h[i].Message.ID
		}
	}
	if err := s.store.ImportHistory(ctx, s.id, h); err != nil {
		t.Fatal(err)
	}
	m := s.openModel(t, 100, 30)
	defer m.Close()
	if n := len(m.runner.History()); n >= len(h) || n > chatOpenMessages {
		t.Fatalf("the runner holds %d of %d messages: not a window", n, len(h))
	}
	if !m.chat.earlier.more || len(m.chat.items) == 0 || m.chat.items[0] != m.chat.earlier.row {
		t.Fatalf("no row of earlier messages above a window of %d of %d messages", len(m.runner.History()), len(h))
	}
}
