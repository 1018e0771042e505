package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestManualCompactOfAShortConversation: /compact after two short turns
// asked for a summary longer than the conversation, logged it as rejected
// twice and then dropped a turn without a summary (hardening 2, item 9c).
// Now nothing is asked and nothing changes: the error is
// ErrNothingToCompact and says why in figures.
func TestManualCompactOfAShortConversation(t *testing.T) {
	summary := summaryText + strings.Repeat(" and more detail", 200)
	h := newHarness(t, pt.Text("short answer"), pt.Text("another short answer"), pt.Text(summary), pt.Text(summary))
	h.turn("short question")
	h.turn("another short question")
	before := len(h.r.state.history)

	err := h.r.Compact(context.Background(), "")
	if !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("Compact = %v, want nothing to compact", err)
	}
	if !strings.Contains(err.Error(), "no more than the summary itself would take") {
		t.Errorf("the error does not say why: %q", err)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests: a summary was asked for", n)
	}
	if ev := h.eventsOf(message.EventCompacted); len(ev) != 0 {
		t.Errorf("compaction events: %+v", ev[0].Compaction)
	}
	if len(h.r.state.history) != before {
		t.Errorf("history went from %d to %d entries", before, len(h.r.state.history))
	}
	p, err := h.r.Preview()
	if err != nil || !p.Nothing {
		t.Errorf("the preview does not say so: %v %+v", err, p.Preview)
	}
}
