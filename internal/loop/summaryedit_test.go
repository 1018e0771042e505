package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestEditedSummaryIsWhatTheNextRequestCarries: after an edit the next
// request carries the edited summary (and not the original), the original
// stays in the database in the compaction's marker, and a session opened
// again carries the edit too.
func TestEditedSummaryIsWhatTheNextRequestCarries(t *testing.T) {
	h := newHarness(t, pt.Text(long("one", 3)), pt.Text(long("two", 3)), pt.Text("three"))
	ctx := context.Background()
	if err := h.r.EditSummary(ctx, "anything"); !errors.Is(err, ErrNoSummary) {
		t.Fatalf("edit before any compaction: %v, want ErrNoSummary", err)
	}
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	h.srv.Add(pt.Text(summaryText))
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	got, _, err := h.r.Summary()
	if err != nil || !strings.HasPrefix(got, "## Goal\nShip it.") {
		t.Fatalf("summary = %q, %v", got, err)
	}
	edited := "## Goal\nShip it by Friday.\n\n## Standing user instructions and constraints\nUse spaces, not tabs."
	if err := h.r.EditSummary(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if err := h.r.EditSummary(ctx, "  \n"); err == nil {
		t.Error("an empty summary was accepted")
	}
	h.srv.Add(pt.Text("four"))
	if res := h.turn("fourth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	req := h.request(len(h.srv.Requests()) - 1)
	sum := req[systemMessages(req)].Content
	if sum != SummaryPreamble+edited {
		t.Errorf("the next request carries %q", sum)
	}
	for _, m := range req {
		if strings.Contains(m.Content, "Use tabs.") {
			t.Error("the original summary was sent after the edit")
		}
	}
	hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	var original string
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Type == message.PartCompaction && p.Compaction.SummaryID != "" {
				original = p.Compaction.OriginalSummary
				if p.Compaction.Edits != 1 {
					t.Errorf("edits = %d", p.Compaction.Edits)
				}
			}
		}
	}
	if !strings.Contains(original, "Use tabs.") {
		t.Errorf("original kept = %q", original)
	}
	// Reopened, the session still carries the edit.
	id := h.r.Session().ID
	h.r.Close()
	r2, err := Open(ctx, h.r.opt, id)
	if err != nil {
		t.Fatal(err)
	}
	h.r = r2
	h.srv.Add(pt.Text("five"))
	h.turn("fifth")
	req = h.request(len(h.srv.Requests()) - 1)
	if sum := req[systemMessages(req)].Content; sum != SummaryPreamble+edited {
		t.Errorf("after reopening the request carries %q", sum)
	}
}
