// Package prune decides which old tool outputs to clear from the context
// (tier 2 of context management). It is pure: Pass reads history and returns
// the parts to mark; the caller marks them (storage.MarkCompacted), which
// keeps the output in the database and sends message.ClearedOutput instead.
//
// Walking back from the newest message, Pass skips the last ProtectTurns
// user turns, stops at the summary (and at the first output already
// cleared: everything older was pruned before), keeps the newest Protect
// tokens of completed tool outputs, and selects the older ones — only if
// clearing them saves more than Minimum tokens, so the prompt cache is not
// broken for a trifle. A summary of work (a subagent's report,
// message.ToolState.WorkSummary) is never selected: it counts as kept
// context and leaves it only into a summary.
package prune

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// Defaults of Options.
const (
	DefaultProtect      int64 = 40000
	DefaultMinimum      int64 = 20000
	DefaultProtectTurns       = 2
)

// Options are the thresholds of a pass. A zero field takes its default.
type Options struct {
	// Protect is how many tokens of the newest completed tool outputs are
	// always kept.
	Protect int64
	// Minimum is the saving a pass must exceed to clear anything.
	Minimum int64
	// ProtectTurns is how many of the last user turns are never touched.
	// A turn starts at a user message the user wrote; the synthetic
	// "continue" after a compaction does not start one.
	ProtectTurns int
}

func (o Options) withDefaults() Options {
	if o.Protect <= 0 {
		o.Protect = DefaultProtect
	}
	if o.Minimum <= 0 {
		o.Minimum = DefaultMinimum
	}
	if o.ProtectTurns <= 0 {
		o.ProtectTurns = DefaultProtectTurns
	}
	return o
}

// Result is what a pass selected.
type Result struct {
	// PartIDs are the tool parts to mark compacted, newest first.
	PartIDs []string
	// Parts is len(PartIDs).
	Parts int
	// TokensSaved is the estimated saving: the cleared outputs minus the
	// placeholder that replaces each. Subtract it from the calculator
	// (Calculator.AddTokens(-TokensSaved)).
	TokensSaved int64
	// Walked is how many messages the pass examined, whether or not it
	// selected anything.
	Walked int
}

// Pass selects the tool outputs to clear in history (oldest first, as
// stored). It returns an empty Result (but for Walked) when the saving
// would not exceed opt.Minimum.
//
// est only needs to get magnitudes right: pass tokens.Chars{}, which is
// O(1) per output. A tokenizer costs about 4 ms per 10 KB, which over
// thousands of outputs on every turn buys nothing for this decision.
func Pass(history []message.Entry, est tokens.Estimator, opt Options) Result {
	opt = opt.withDefaults()
	if est == nil {
		est = tokens.Chars{}
	}
	cleared := int64(est.Count(message.ClearedOutput))
	v := tokens.VisibleHistory(history)

	var (
		res       Result
		turns     int
		protected int64 // completed output tokens seen so far, newest first
		ids       []string
		saved     int64
	)
	// visit examines one entry; false stops the walk.
	visit := func(e *message.Entry) bool {
		res.Walked++
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic {
			turns++
		}
		if turns < opt.ProtectTurns {
			return true
		}
		for j := len(e.Parts) - 1; j >= 0; j-- {
			p := &e.Parts[j]
			t := p.Tool
			if p.Type != message.PartTool || t == nil || t.CallID == "" {
				continue
			}
			if t.WorkSummary() {
				// Never cleared, only summarised: it still counts as
				// kept context.
				if t.Status == message.ToolCompleted {
					protected += int64(est.Count(t.Output))
				}
				continue
			}
			if !t.CompactedAt.IsZero() {
				return false // older outputs were pruned by an earlier pass
			}
			if t.Status != message.ToolCompleted {
				continue
			}
			// Its images go with it (tokens.ToolImages), as the
			// calculator counts them.
			n := int64(est.Count(t.Output)) + int64(len(tokens.ToolImages(t)))*tokens.ImageTokens
			protected += n
			if protected > opt.Protect && n > cleared {
				ids = append(ids, p.ID)
				saved += n - cleared
			}
		}
		return true
	}
	walk := func(entries []message.Entry) bool {
		for i := len(entries) - 1; i >= 0; i-- {
			if !visit(&entries[i]) {
				return false
			}
		}
		return true
	}
	// Sent order is kept head, summary, kept tail, the rest: walk it
	// backwards, over the summary.
	if walk(v.After) && walk(v.Kept) {
		walk(v.Head)
	}
	if saved <= opt.Minimum {
		return Result{Walked: res.Walked}
	}
	res.PartIDs, res.Parts, res.TokensSaved = ids, len(ids), saved
	return res
}
