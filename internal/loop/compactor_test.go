package loop

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// sliceHistory is a sessionHistory over a plain slice, for driving a
// compactor without a Runner.
type sliceHistory struct {
	mu sync.Mutex
	h  []message.Entry
}

func (s *sliceHistory) entries() []message.Entry { return s.h }

func (s *sliceHistory) update(edit func([]message.Entry) []message.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h = edit(s.h)
}

// compactorRig is a compactor over a real store in a temporary directory,
// a session stored in it and a history of its own; no Runner, no provider.
type compactorRig struct {
	c      *compactor
	st     *storage.Store
	hist   *sliceHistory
	sess   message.Session
	events []message.Event
	// ceiling is the learnt ceiling the rig's pricing reads; busy and
	// released stand for the loop's busy flag and the results its busy
	// periods ended with.
	ceiling  atomic.Int64
	busy     bool
	released []TurnResult
}

func newCompactorRig(t *testing.T, window int64) *compactorRig {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rig := &compactorRig{st: st, hist: &sliceHistory{}}
	rig.sess = message.Session{ID: message.NewID(), Model: "m", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := st.CreateSession(ctx, &rig.sess); err != nil {
		t.Fatal(err)
	}
	calc := tokens.NewCalculator(tokens.Options{Window: window, MaxOutput: window / 8}, tokens.Chars{})
	cfg := &config.Config{Model: "m", Models: map[string]config.ModelInfo{"m": {ContextWindow: window, MaxOutput: window / 8}},
		Compaction: config.Compaction{Auto: true, Strategy: "overflow", Threshold: 0.8}}
	rig.c = newCompactor(compactorDeps{
		store:   st,
		history: rig.hist,
		session: func() string { return rig.sess.ID },
		price: func() pricing {
			return pricing{modelPricing: newModelPricing(cfg, "m", tokens.Chars{}), cfg: cfg, ceiling: rig.ceiling.Load(), calc: calc}
		},
		calc:      func() *tokens.Calculator { return calc },
		sent:      func(h []message.Entry, _ bool) (int64, int64) { return sentChars(h), 0 },
		fixed:     func() compact.Fixed { return compact.Fixed{} },
		emit:      func(ev message.Event) { rig.events = append(rig.events, ev) },
		preHooks:  func(context.Context, compactRequest) error { return nil },
		postHooks: func(context.Context, compactRequest, error) {},
		claim: func() (func(TurnResult), TurnResult, error) {
			if rig.busy {
				return nil, TurnResult{}, ErrBusy
			}
			rig.busy = true
			return func(res TurnResult) { rig.busy, rig.released = false, append(rig.released, res) }, TurnResult{}, nil
		},
	}, nil)
	return rig
}

// sentChars is a request estimate for the rig: the characters of the
// history sent, a cleared output counting as none.
func sentChars(h []message.Entry) int64 {
	var n int64
	for _, e := range tokens.VisibleHistory(h).Entries() {
		for _, p := range e.Parts {
			n += int64(len(p.Text))
			if p.Tool != nil && p.Tool.CompactedAt.IsZero() {
				n += int64(len(p.Tool.Output))
			}
		}
	}
	return n
}

// add stores a message with its parts and appends it to the rig's history.
func (rig *compactorRig) add(t *testing.T, m message.Message, parts ...message.Part) {
	t.Helper()
	ctx := context.Background()
	m.SessionID = rig.sess.ID
	if err := rig.st.CreateMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}
	for i := range parts {
		parts[i].SessionID, parts[i].MessageID = rig.sess.ID, m.ID
		if err := rig.st.UpsertPart(ctx, &parts[i]); err != nil {
			t.Fatal(err)
		}
	}
	rig.hist.h = append(rig.hist.h, message.Entry{Message: m, Parts: parts})
}

func (rig *compactorRig) addToolCall(t *testing.T, output string) string {
	t.Helper()
	rig.add(t, message.Message{Role: message.RoleUser}, message.Part{Type: message.PartText, Text: "look"})
	tool := message.Part{Type: message.PartTool, Tool: &message.ToolState{CallID: "c1", Name: "read", Status: message.ToolCompleted, Input: "{}", Output: output}}
	rig.add(t, message.Message{Role: message.RoleAssistant}, tool)
	return rig.hist.h[len(rig.hist.h)-1].Parts[0].ID
}

func toolCompactedAt(h []message.Entry, id string) time.Time {
	for _, e := range h {
		for _, p := range e.Parts {
			if p.ID == id && p.Tool != nil {
				return p.Tool.CompactedAt
			}
		}
	}
	return time.Time{}
}

// A prune and its undo, driven on a compactor alone: the output is
// cleared and restored in the history and in the database, and the undo
// leaves a marker saying so.
func TestCompactorPrunesAndUndoesWithoutARunner(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 100_000)
	id := rig.addToolCall(t, "a long output that a prune clears")

	if err := rig.c.markCompacted(ctx, []string{id}); err != nil {
		t.Fatal(err)
	}
	if toolCompactedAt(rig.hist.h, id).IsZero() {
		t.Fatal("markCompacted left the history's tool part uncleared")
	}
	stored, err := rig.st.LoadHistory(ctx, rig.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if toolCompactedAt(stored, id).IsZero() {
		t.Fatal("markCompacted left the stored tool part uncleared")
	}

	n := len(rig.hist.h)
	u, err := rig.c.undo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.Kind != "pruned" || u.Parts != 1 || u.TokensAfter <= u.TokensBefore {
		t.Fatalf("undo = %+v, want 1 pruned part restored, more tokens after", u)
	}
	if !toolCompactedAt(rig.hist.h, id).IsZero() {
		t.Fatal("undo left the history's tool part cleared")
	}
	if len(rig.hist.h) != n+1 || rig.hist.h[n].Parts[0].Compaction == nil || rig.hist.h[n].Parts[0].Compaction.Reason != "undo" {
		t.Fatalf("undo did not append its marker: %d entries, want %d", len(rig.hist.h), n+1)
	}
	stored, err = rig.st.LoadHistory(ctx, rig.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !toolCompactedAt(stored, id).IsZero() || len(stored) != n+1 {
		t.Fatalf("stored history after undo: %d entries, part cleared %v", len(stored), !toolCompactedAt(stored, id).IsZero())
	}
	if _, err := rig.c.undo(ctx); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("second undo: %v, want ErrNothingToUndo", err)
	}
}

// An undo whose history would not fit the model is refused and changes
// nothing.
func TestCompactorRefusesAnUndoThatDoesNotFit(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 4_000)
	id := rig.addToolCall(t, string(make([]byte, 40_000)))
	if err := rig.c.markCompacted(ctx, []string{id}); err != nil {
		t.Fatal(err)
	}
	before := len(rig.hist.h)
	_, err := rig.c.undo(ctx)
	var tooLarge *UndoTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("undo: %v, want *UndoTooLargeError", err)
	}
	if len(rig.hist.h) != before || toolCompactedAt(rig.hist.h, id).IsZero() {
		t.Fatal("a refused undo changed the history")
	}
}

// Editing the summary replaces its text, keeps the first text in the
// marker, counts the edit and announces the part.
func TestCompactorEditsTheSummary(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 100_000)
	if err := rig.c.editSummary(ctx, "anything"); !errors.Is(err, ErrNoSummary) {
		t.Fatalf("edit with no summary: %v, want ErrNoSummary", err)
	}
	rig.add(t, message.Message{Role: message.RoleUser}, message.Part{Type: message.PartText, Text: "old question"})
	marker := message.Message{SessionID: rig.sess.ID, Role: message.RoleUser, Synthetic: true, FinishedAt: time.Now()}
	state := &message.CompactionState{Reason: "manual", Outcome: "applied"}
	if _, err := rig.c.saveMarker(ctx, &marker, state); err != nil {
		t.Fatal(err)
	}
	rig.add(t, message.Message{Role: message.RoleAssistant, Summary: true, ParentID: marker.ID}, message.Part{Type: message.PartText, Text: "first summary"})
	sumID := rig.hist.h[len(rig.hist.h)-1].Message.ID
	mp := rig.hist.h[len(rig.hist.h)-2].Parts[0]
	mp.Compaction.SummaryID = sumID
	if err := rig.st.UpsertPart(ctx, &mp); err != nil {
		t.Fatal(err)
	}

	if err := rig.c.editSummary(ctx, "second summary"); err != nil {
		t.Fatal(err)
	}
	sum, mark := summaryEntries(rig.hist.h)
	if sum < 0 || mark < 0 {
		t.Fatalf("summaryEntries = %d, %d after the edit", sum, mark)
	}
	if got := joinText(rig.hist.h[sum].Parts, message.PartText); got != "second summary" {
		t.Fatalf("summary text %q, want the edit", got)
	}
	if c := rig.hist.h[mark].Parts[0].Compaction; c.OriginalSummary != "first summary" || c.Edits != 1 {
		t.Fatalf("marker after the edit: original %q, edits %d", c.OriginalSummary, c.Edits)
	}
	if len(rig.events) != 1 || rig.events[0].Type != message.EventPartUpdated {
		t.Fatalf("events %+v, want one part update", rig.events)
	}
	stored, err := rig.st.LoadHistory(ctx, rig.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := summaryEntries(stored); s < 0 || joinText(stored[s].Parts, message.PartText) != "second summary" {
		t.Fatal("the stored summary does not carry the edit")
	}
}

// An applied compaction appends its marker and summary, linked, and
// announces it; an attempt not applied leaves a rejected marker only.
func TestCompactorAppliesAndRecordsARejection(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 100_000)
	rig.addToolCall(t, "output")
	n := len(rig.hist.h)

	rejected := &message.CompactionState{Reason: "auto", Outcome: "rejected"}
	if err := rig.c.notApplied(ctx, rejected, errors.New("too long")); !errors.Is(err, errNotApplied) {
		t.Fatalf("notApplied: %v, want errNotApplied", err)
	}
	if len(rig.hist.h) != n+1 || !rig.hist.h[n].Parts[0].Compaction.Rejected {
		t.Fatal("notApplied did not append a rejected marker")
	}

	state := &message.CompactionState{Reason: "auto", Outcome: "applied"}
	if err := rig.c.apply(ctx, state, "the summary", "small", summaryCost{costUSD: 0.5}, "compaction", false); err != nil {
		t.Fatal(err)
	}
	h := rig.hist.h
	if len(h) != n+3 || !h[n+2].Message.Summary || h[n+2].Message.ParentID != h[n+1].Message.ID {
		t.Fatalf("apply: %d entries, want marker and summary appended", len(h))
	}
	if h[n+1].Parts[0].Compaction.SummaryID != h[n+2].Message.ID {
		t.Fatal("the marker does not name its summary")
	}
	if s, m := summaryEntries(h); s != n+2 || m != n+1 {
		t.Fatalf("summaryEntries = %d, %d, want %d, %d", s, m, n+2, n+1)
	}
	if got := len(rig.events); got != 4 { // rejected; message, part, compacted
		t.Fatalf("%d events, want 4", got)
	}
	stored, err := rig.st.LoadHistory(ctx, rig.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(h) || stored[len(stored)-1].Message.CostUSD != 0.5 {
		t.Fatal("the stored history does not match the compactor's")
	}
}
