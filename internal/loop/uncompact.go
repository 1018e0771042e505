package loop

// Undoing context management. Nothing it does deletes anything: a summary
// is a message and its compaction a marker, a pruned output keeps its
// text. Undo marks the newest compaction in force undone
// (CompactionState.UndoneAt): its summary stays in the database but is no
// longer sent, and the history it replaced is sent again
// (tokens.VisibleHistory). With no compaction left to undo, undo restores
// the pruned outputs of the history sent. Either happens only when the
// request then fits below the current model's compaction point — after
// /model switched to a larger window, typically — and is refused, saying
// by how much, otherwise.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// ErrNothingToUndo is returned when no compaction is in force and no
// output sent is pruned.
var ErrNothingToUndo = errors.New("nothing to undo: no compaction is in force and no tool output sent is cleared")

// UndoTooLargeError refuses an undo whose history does not fit the
// current model.
type UndoTooLargeError struct {
	What   string // "the history before the compaction", "the pruned outputs restored"
	Need   int64  // the request after the undo, by our estimate
	Window int64  // the model's context window
	Point  int64  // where compaction would start
}

func (e *UndoTooLargeError) Error() string {
	return fmt.Sprintf("cannot undo: %s is %s tokens; the current model's window is %s (compaction starts at %s). Switch to a model with a larger window (/model) and undo again",
		e.What, formatK(e.Need), formatK(e.Window), formatK(e.Point))
}

// formatK renders a token count for people: 950, 12.5K, 180K.
func formatK(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n%1000 == 0 || n >= 100_000:
		return fmt.Sprintf("%dK", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fK", float64(n)/1000)
}

// Undo says what UndoCompaction restored.
type Undo struct {
	// Kind is "compaction" (a summary undone) or "pruned" (outputs
	// restored).
	Kind string `json:"kind"`
	// SummaryID is the summary no longer sent; Parts, the outputs
	// restored.
	SummaryID    string `json:"summary_id,omitempty"`
	Parts        int    `json:"parts,omitempty"`
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
}

// undoPlan is what an undo of this history would change: the compaction
// part to mark undone (entry and part index), or else the pruned tool
// parts to restore.
type undoPlan struct {
	entry, part int
	pruned      []string
}

func (p undoPlan) empty() bool { return p.entry < 0 && len(p.pruned) == 0 }

// planUndo decides what undo restores in history: the compaction of the
// summary in force, else the pruned outputs of the history sent.
func planUndo(history []message.Entry) undoPlan {
	plan := undoPlan{entry: -1, part: -1}
	v := tokens.VisibleHistory(history)
	if v.Summary != nil {
		id := v.Summary.Message.ID
		for i := len(history) - 1; i >= 0; i-- {
			for j, p := range history[i].Parts {
				if c := p.Compaction; p.Type == message.PartCompaction && c != nil && c.SummaryID == id && !c.Rejected {
					plan.entry, plan.part = i, j
					return plan
				}
			}
		}
	}
	for _, e := range v.Entries() {
		for _, p := range e.Parts {
			if p.Type == message.PartTool && p.Tool != nil && !p.Tool.CompactedAt.IsZero() {
				plan.pruned = append(plan.pruned, p.ID)
			}
		}
	}
	return plan
}

// apply returns history as the plan leaves it, sharing what it does not
// change.
func (p undoPlan) apply(history []message.Entry, at time.Time) []message.Entry {
	out := append([]message.Entry(nil), history...)
	if p.entry >= 0 {
		e := &out[p.entry]
		e.Parts = append([]message.Part(nil), e.Parts...)
		c := *e.Parts[p.part].Compaction
		c.UndoneAt = at
		e.Parts[p.part].Compaction = &c
		return out
	}
	restore := make(map[string]bool, len(p.pruned))
	for _, id := range p.pruned {
		restore[id] = true
	}
	return restoreParts(out, func(pt *message.Part) bool { return restore[pt.ID] })
}

// restoreParts clears CompactedAt on the tool parts of history (a copy the
// caller owns) that want says to, copying the parts it changes.
func restoreParts(history []message.Entry, want func(*message.Part) bool) []message.Entry {
	for i := range history {
		copied := false
		for j := range history[i].Parts {
			pt := &history[i].Parts[j]
			if pt.Type != message.PartTool || pt.Tool == nil || pt.Tool.CompactedAt.IsZero() || !want(pt) {
				continue
			}
			if !copied {
				history[i].Parts = append([]message.Part(nil), history[i].Parts...)
				pt = &history[i].Parts[j]
				copied = true
			}
			t := *pt.Tool
			t.CompactedAt = time.Time{}
			pt.Tool = &t
		}
	}
	return history
}

// fullyRestored returns history with every compaction undone and every
// pruned output restored: everything the session said.
func fullyRestored(history []message.Entry) []message.Entry {
	out := append([]message.Entry(nil), history...)
	at := time.Unix(1, 0)
	for i := range out {
		for j, p := range out[i].Parts {
			if c := p.Compaction; p.Type == message.PartCompaction && c != nil && c.UndoneAt.IsZero() && c.SummaryID != "" {
				out[i].Parts = append([]message.Part(nil), out[i].Parts...)
				cc := *c
				cc.UndoneAt = at
				out[i].Parts[j].Compaction = &cc
			}
		}
	}
	return restoreParts(out, func(*message.Part) bool { return true })
}

// RestoreCost is what undoing context management would make the request,
// by the same estimate compaction decides on (requestEstimate).
type RestoreCost struct {
	// Undo is the request after one undo (UndoCompaction); nil when there
	// is nothing to undo.
	Undo *int64 `json:"undo_tokens"`
	// Full is the request with every compaction undone and every pruned
	// output restored.
	Full int64 `json:"restore_tokens"`
	// UndoKind is what the undo restores: "compaction" (the history
	// before the newest summary) or "pruned" (the cleared outputs); Fit
	// is the largest request an undo may make (the current model's
	// compaction point; 0: no limit). For /context, not the contract.
	UndoKind string `json:"-"`
	Fit      int64  `json:"-"`
}

// restoreCost prices the undo and the full restore of history, the
// session's (the caller holds busy).
func (c *compactor) restoreCost(history []message.Entry) RestoreCost {
	return restoreCostOf(history, c.requestEstimate, c.price().fitPoint())
}

// restoreCostOf prices the undo and the full restore of history; estimate
// is the request a history makes (requestEstimate), fit the compaction
// point (pricing.fitPoint). Pure.
func restoreCostOf(history []message.Entry, estimate func([]message.Entry) int64, fit int64) RestoreCost {
	c := RestoreCost{Full: estimate(fullyRestored(history)), Fit: fit}
	if plan := planUndo(history); !plan.empty() {
		n := estimate(plan.apply(history, time.Now()))
		c.Undo, c.UndoKind = &n, "pruned"
		if plan.entry >= 0 {
			c.UndoKind = "compaction"
		}
	}
	return c
}

// RestoreCost prices undoing context management for /context; ok is false
// while a turn runs (the history is the loop's then).
func (r *Runner) RestoreCost() (cost RestoreCost, ok bool) {
	if !r.turns.claim() {
		return RestoreCost{}, false
	}
	defer r.turns.release()
	_ = readWhole(context.Background(), r.store, r.state) // unreadable: priced from the window
	return r.comp.restoreCost(r.state.history), true
}

// UndoCompaction restores the history as it was before the newest
// compaction (`agent compact --undo`, `/compact undo`), or, with no
// compaction in force, the pruned outputs; see the top of this file. It
// fails with ErrNothingToUndo, with an *UndoTooLargeError when the result
// would not fit the current model, or if a turn is running.
func (r *Runner) UndoCompaction(ctx context.Context) (Undo, error) { return r.comp.undoNow(ctx) }

// undoNow is undo while no turn runs: the runner is busy meanwhile (claim).
func (c *compactor) undoNow(ctx context.Context) (Undo, error) {
	release, _, err := c.claim()
	if err != nil {
		return Undo{}, fmt.Errorf("undo compaction: %w", err)
	}
	if w, ok := c.history.(interface{ readWhole(context.Context) error }); ok {
		if err := w.readWhole(ctx); err != nil { // the history before the window (openwindow.go)
			release(TurnResult{FinishReason: FinishError, Err: err})
			return Undo{}, fmt.Errorf("undo compaction: %w", err)
		}
	}
	u, err := c.undo(ctx)
	res := TurnResult{FinishReason: "undone"}
	if err != nil {
		res = TurnResult{FinishReason: FinishError, Err: err}
	}
	release(res)
	return u, err
}
