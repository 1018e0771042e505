package loop

// The compaction preview: what Compact would do now, computed without any
// model call and without writing anything. It follows summaryAttempt step
// by step — the prune pass first (marked on a copy of the history), then
// the plan — so its range, tail and verbatim user messages are the ones
// the compaction then uses; the total after is an estimate bounded by the
// summary's output cap (the summary's length is only known once written).

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// CompactPreview is what a compaction would do now.
type CompactPreview struct {
	compact.Preview
	// Total is the request's size now; CompactAt the automatic compaction
	// point (0: never automatically).
	Total     int64 `json:"total"`
	CompactAt int64 `json:"compact_at"`
	// PruneParts and PruneTokens are the old tool outputs the prune pass
	// would clear first, and what that saves.
	PruneParts  int   `json:"prune_parts"`
	PruneTokens int64 `json:"prune_tokens"`
	// Pins and PinsTokens are the pinned facts, sent after the summary.
	Pins       int   `json:"pins"`
	PinsTokens int64 `json:"pins_tokens"`
	// SummaryMaxTokens caps the summary's output. AfterMin is the total
	// after the compaction with an empty summary, After with a summary of
	// the most it may take: SummaryMaxTokens, and no more than the range it
	// replaces (a longer one is rejected). The real total lands between.
	SummaryMaxTokens int64 `json:"summary_max_tokens"`
	AfterMin         int64 `json:"after_min"`
	After            int64 `json:"after"`
	// Model would write the summary.
	Model string `json:"model"`
	// NothingReason says why there is nothing to compact (Nothing set),
	// as Compact's error does: "nothing to compact yet: …".
	NothingReason string `json:"nothing_reason,omitempty"`
}

// ErrBusy is returned by what needs the loop idle.
var ErrBusy = errors.New("the agent is busy; wait for the turn to end or cancel it")

// Preview returns what Compact would do now; no request is sent and
// nothing is written. It fails while a turn runs.
func (r *Runner) Preview() (CompactPreview, error) {
	var history []message.Entry
	var pins []message.Pin
	busy := false
	r.turns.locked(func(b bool) {
		if busy = b; b {
			return
		}
		// A copy the loop cannot change under us once a turn starts.
		history = make([]message.Entry, len(r.state.history))
		for i, e := range r.state.history {
			e.Parts = append([]message.Part(nil), e.Parts...)
			history[i] = e
		}
		pins = append([]message.Pin(nil), r.state.pins...)
	})
	if busy {
		return CompactPreview{}, ErrBusy
	}
	return previewOf(r.mp.priced(r.opt.Config, r.stepper.ceiling.Load(), r.calcp.Load()), history, pins, r.state.id()), nil
}

// previewOf is what Compact would do now to history, priced by p; pure.
func previewOf(pr pricing, history []message.Entry, pins []message.Pin, sessionID string) CompactPreview {
	s := pr.snapshot()
	fixed := s.Breakdown.System + s.Breakdown.Tools + s.Breakdown.Pins
	estimate := func(h []message.Entry) int64 {
		v := Visible(h)
		return fixed + max(pr.calc.EstimateEntries(v), tokens.EstimateEntries(v, pr.est))
	}
	p := CompactPreview{Total: max(s.Total, estimate(history)), CompactAt: s.CompactAt,
		Pins: len(pins), PinsTokens: s.Breakdown.Pins, Model: pr.summaryModel()}
	if pr.cfg.Compaction.Prune {
		res := prune.Pass(Visible(history), pr.est, pr.pruneOptions())
		if len(res.PartIDs) > 0 {
			history = compact.MarkPruned(history, res.PartIDs, time.Now())
			// Calibrated, as the prune subtracts it (Calculator.RemoveEstimate).
			p.PruneParts, p.PruneTokens = res.Parts, int64(float64(res.TokensSaved)*cmp.Or(s.Calibration, 1))
		}
	}
	plan := compact.MakePlan(history, pr.est, pr.planOptions())
	p.Preview = compact.PreviewOf(plan, pr.calc.Estimator())
	if err := nothingToCompact(plan, compactRequest{}, pr.calc.Estimator()); err != nil {
		p.Nothing, p.NothingReason = true, err.Error()
	}
	if p.Nothing {
		p.AfterMin, p.After = p.Total-p.PruneTokens, p.Total-p.PruneTokens
		return p
	}
	p.SummaryMaxTokens = pr.summarySizing(p.Model).MaxTokens
	body := compact.ComposeSummary("", plan.UserMessages)
	p.AfterMin = estimate(withSummaryOf(history, sessionID, &message.CompactionState{TailFrom: p.TailFrom}, body, p.Model))
	p.After = p.AfterMin + int64(float64(min(p.SummaryMaxTokens, p.SummariseTokens))*max(s.Calibration, 1))
	return p
}

// Lines describe the preview for people, one fact a line.
func (p CompactPreview) Lines() []string {
	n := commas
	out := []string{fmt.Sprintf("Now %s tokens; %s.", n(p.Total), compactAtText(p.CompactAt))}
	if p.PruneParts > 0 {
		out = append(out, fmt.Sprintf("Prune first: %d old tool output%s cleared (−%s tokens).", p.PruneParts, plural(p.PruneParts), n(p.PruneTokens)))
	} else {
		out = append(out, "Prune first: no old tool output to clear.")
	}
	if p.Nothing {
		return append(out, "Nothing to summarise yet: a compaction now would change nothing ("+strings.TrimPrefix(p.NothingReason, ErrNothingToCompact.Error()+": ")+").")
	}
	out = append(out,
		fmt.Sprintf("Summarise %d message%s (%s tokens) into a summary of at most %s tokens, written by %s.",
			p.SummariseMessages, plural(p.SummariseMessages), n(p.SummariseTokens), n(p.SummaryMaxTokens), p.Model))
	if p.TailMessages > 0 {
		out = append(out, fmt.Sprintf("Keep verbatim: the last %d message%s (%s tokens).", p.TailMessages, plural(p.TailMessages), n(p.TailTokens)))
	} else {
		out = append(out, "Keep verbatim: no recent message (the last turn is over the tail budget).")
	}
	out = append(out, fmt.Sprintf("Your messages kept word for word in the summary: %d (%s tokens).", len(p.UserMessages), n(p.UserTokens)))
	for _, u := range p.UserMessages {
		out = append(out, "  > "+clipLine(u, 72))
	}
	if p.Pins > 0 {
		out = append(out, fmt.Sprintf("Pins sent after the summary: %d (%s tokens).", p.Pins, n(p.PinsTokens)))
	}
	return append(out, fmt.Sprintf("Estimated total after: %s–%s tokens (no request was sent).", n(p.AfterMin), n(p.After)))
}

func compactAtText(at int64) string {
	if at <= 0 {
		return "no automatic compaction (compaction.auto off or manual strategy)"
	}
	return "automatic compaction at " + commas(at)
}

// clipLine puts text on one line of at most width runes.
func clipLine(text string, width int) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > width {
		t = string(r[:width-1]) + "…"
	}
	return t
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// commas formats n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
