package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/compact"
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
	if want := SummaryPreamble + compact.ComposeSummary(edited, []string{"first"}); sum != want {
		t.Errorf("the next request carries %q, want the edit and the verbatim block %q", sum, want)
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
	if sum := req[systemMessages(req)].Content; sum != SummaryPreamble+compact.ComposeSummary(edited, []string{"first"}) {
		t.Errorf("after reopening the request carries %q", sum)
	}
}

// TestEditedSummaryKeepsTheUserMessages: an edit replaces the summary
// text only. The user's messages kept verbatim in the summary stay in
// every later request whether the new text is plain (stdin), an editor's
// file with its read-only part changed or deleted, or a copy of the whole
// summary with the verbatim block rewritten.
func TestEditedSummaryKeepsTheUserMessages(t *testing.T) {
	const rule = "always run gofmt before you commit"
	h := newHarness(t, pt.Text(long("one", 3)), pt.Text(long("two", 3)), pt.Text(long("three", 3)))
	ctx := context.Background()
	for _, q := range []string{rule, "second", "third"} {
		h.turn(q)
	}
	h.srv.Add(pt.Text(summaryText))
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	body, _, err := h.r.Summary()
	if err != nil || !strings.Contains(body, rule) {
		t.Fatalf("the summary does not keep the rule verbatim: %q %v", body, err)
	}
	if _, err := h.r.AddPin(ctx, "the deploy key lives in vault", ""); err != nil {
		t.Fatal(err)
	}
	file := SummaryEditFile(body, h.r.Pins())
	editable, kept, ok := strings.Cut(file, SummaryEditMarker)
	if !ok || strings.Contains(editable, rule) || !strings.Contains(kept, rule) || !strings.Contains(kept, "vault") {
		t.Fatalf("editor file shows the verbatim block as editable:\n%s", file)
	}
	for _, tc := range []struct{ name, edited, want string }{
		{"stdin", "## Goal\nShip it by Friday.", "Ship it by Friday."},
		{"editor, kept part rewritten", "## Goal\nShip on Monday.\n\n" + SummaryEditMarker + "\nnothing kept\n", "Ship on Monday."},
		{"editor, marker deleted", strings.Replace(strings.Replace(file, SummaryEditMarker+"\n", "", 1), "Ship it.", "Ship today.", 1), "Ship today."},
		{"whole body, block rewritten", strings.Replace(strings.Replace(body, rule, "never mind", 1), "Ship it.", "Ship now.", 1), "Ship now."},
	} {
		if err := h.r.EditSummary(ctx, tc.edited); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		h.srv.Add(pt.Text("ok"))
		if res := h.turn("go on"); res.Err != nil {
			t.Fatal(res.Err)
		}
		req := h.request(len(h.srv.Requests()) - 1)
		sum := req[systemMessages(req)].Content
		if !strings.Contains(sum, tc.want) || !strings.Contains(sum, rule) || strings.Contains(sum, "never mind") ||
			strings.Count(sum, rule) != 1 || strings.Contains(sum, "vault") || strings.Contains(sum, SummaryEditMarker) {
			t.Errorf("%s: the request after the edit carries\n%s", tc.name, sum)
		}
	}
	if err := h.r.EditSummary(ctx, "\n"+SummaryEditMarker+"\nonly kept text\n"); err == nil {
		t.Error("an edit with an empty summary text was accepted")
	}
}
