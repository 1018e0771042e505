package tokens

import (
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// Restore rebuilds a session's calculator from its stored history (oldest
// first) when the session is opened, without any model call.
//
// Only what is sent counts (VisibleHistory). The anchor is the newest
// step-finish part with input usage stored after the newest summary (the
// summary's own step is the summarisation call, not the context): its usage
// becomes lastInput/lastOutput, the results of that step's tool calls and
// every later entry are estimated as new, and tool outputs pruned after that
// step are taken off at their estimated size. Without such a step, or when a
// compaction (not rejected) was recorded after it, the basis is estimated:
// system + tools + the estimate of the visible history. The last estimate
// error is restored from that step's StepState.Estimate in either case, and
// the calibration from the newest StepState.Calibration, so that a session
// reopened (or read by `agent context`) estimates exactly as it did live.
// A step whose usage was suspect (StepState.UsageSuspect) is no anchor; when
// the newest step sent no usage or a suspect one, the snapshot says so as the
// live one did (WarnNoUsage, UsageSuspect).
func Restore(opt Options, est Estimator, system, tools int64, history []message.Entry) *Calculator {
	c := NewCalculator(opt, est)
	c.system, c.tools = system, tools
	v := VisibleHistory(history)
	// New text is estimated with the calibration the session had learnt,
	// as the running session estimates it.
	if ratio := lastCalibration(history); ratio > 0 {
		c.cal = Calibration{ratio: ratio, samples: 1}
	}
	cest := Calibrated{Estimator: c.est, Ratio: c.cal.Ratio()}

	defer restoreUsageFlags(c, history, v)
	c.reasoning = ReasoningSent(history, cest, c.roundtrip)
	ai, pi := newestStep(v.After)
	if ai >= 0 {
		if st := v.After[ai].Parts[pi].Step; st.Estimate > 0 {
			c.estErr = float64(st.Estimate-st.Usage.Input) / float64(st.Usage.Input)
			c.hasErr = true
		}
	}
	if ai < 0 || compactedAfter(history, v.After[ai].Message.ID, pi) {
		c.added = estimateVisible(v, cest, c.roundtrip)
		return c
	}
	step := v.After[ai].Parts[pi]
	u := step.Step.Usage
	c.hasActual = true
	c.lastInput = u.Input
	c.lastOutput = sentOutput(u, c.roundtrip)

	// New since the call: the step's tool results (the calls themselves
	// were its output), anything stored after its step-finish part, and
	// every later entry.
	var added, raw int64
	own := &v.After[ai]
	for j := range own.Parts {
		p := &own.Parts[j]
		switch {
		case p.Type == message.PartTool:
			if p.Tool != nil && p.Tool.CallID != "" {
				added += toolResultCost(p.Tool, cest)
				raw += toolResultCost(p.Tool, c.est)
			}
		case j > pi && (p.Type == message.PartText || (p.Type == message.PartReasoning && c.roundtrip)):
			added += int64(cest.Count(p.Text))
			raw += int64(c.est.Count(p.Text))
		}
	}
	added += estimateEntries(v.After[ai+1:], cest, c.roundtrip)
	raw += estimateEntries(v.After[ai+1:], c.est, c.roundtrip)

	// Outputs that the call still carried but that were pruned since.
	stepAt := partTime(step)
	// Their saving is estimated raw, then calibrated once, as the running
	// session takes a prune's saving off (RemoveEstimate).
	var pruned int64
	forEachSentBefore(v, ai, func(t *message.ToolState) {
		if t.CallID != "" && t.CompactedAt.After(stepAt) && !t.WorkSummary() { // a report is sent even if marked
			sent := *t
			sent.CompactedAt = time.Time{}
			pruned += int64(c.est.Count(ToolResult(&sent))) - int64(c.est.Count(message.ClearedOutput))
		}
	})
	pruned = int64(scale(int(pruned), c.cal.Ratio()))
	c.added, c.addedRaw = added-pruned, raw
	c.addedExact = -pruned
	return c
}

// estimateVisible prices v without copying its entries.
func estimateVisible(v Visible, est Estimator, roundtrip bool) int64 {
	var n int64
	if v.Summary != nil {
		n += entryCost(v.Summary, est, roundtrip)
	}
	return n + estimateEntries(v.Head, est, roundtrip) + estimateEntries(v.Kept, est, roundtrip) + estimateEntries(v.After, est, roundtrip)
}

// newestStep finds the newest step-finish part with input usage: entry and
// part index, or -1.
func newestStep(entries []message.Entry) (int, int) {
	for i := len(entries) - 1; i >= 0; i-- {
		parts := entries[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			p := &parts[j]
			if p.Type == message.PartStepFinish && p.Step != nil && p.Step.Usage.Input > 0 && !p.Step.UsageSuspect {
				return i, j
			}
		}
	}
	return -1, -1
}

// compactedAfter reports whether a compaction that was not rejected is
// recorded in history after part pi of the message stepID (compaction
// markers are not visible, so this looks at the stored history).
func compactedAfter(history []message.Entry, stepID string, pi int) bool {
	k := len(history) - 1
	for k >= 0 && history[k].Message.ID != stepID {
		k--
	}
	if k < 0 {
		return false
	}
	for i := k; i < len(history); i++ {
		for j, p := range history[i].Parts {
			if i == k && j <= pi {
				continue
			}
			if p.Type == message.PartCompaction && (p.Compaction == nil || !p.Compaction.Rejected) {
				return true
			}
		}
	}
	return false
}

// forEachSentBefore calls fn for every tool state sent before After[ai].
func forEachSentBefore(v Visible, ai int, fn func(*message.ToolState)) {
	visit := func(e *message.Entry) {
		for j := range e.Parts {
			if t := e.Parts[j].Tool; e.Parts[j].Type == message.PartTool && t != nil {
				fn(t)
			}
		}
	}
	for i := range v.Head {
		visit(&v.Head[i])
	}
	if v.Summary != nil {
		visit(v.Summary)
	}
	for i := range v.Kept {
		visit(&v.Kept[i])
	}
	for i := 0; i < ai; i++ {
		visit(&v.After[i])
	}
}

func partTime(p message.Part) time.Time {
	if !p.UpdatedAt.IsZero() {
		return p.UpdatedAt
	}
	return p.CreatedAt
}

// lastCalibration returns the calibration stored with the newest step that
// has one, or 0.
func lastCalibration(history []message.Entry) float64 {
	for i := len(history) - 1; i >= 0; i-- {
		parts := history[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			if st := parts[j].Step; parts[j].Type == message.PartStepFinish && st != nil && st.Calibration > 0 {
				return st.Calibration
			}
		}
	}
	return 0
}

// restoreUsageFlags marks c as the live calculator was after the newest
// step sent after the newest summary, unless a compaction followed it: no
// usage (WarnNoUsage) or a suspect one (UsageSuspect).
func restoreUsageFlags(c *Calculator, history []message.Entry, v Visible) {
	for i := len(v.After) - 1; i >= 0; i-- {
		parts := v.After[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			st := parts[j].Step
			if parts[j].Type != message.PartStepFinish || st == nil {
				continue
			}
			if compactedAfter(history, v.After[i].Message.ID, j) {
				return
			}
			switch {
			case st.UsageSuspect:
				c.suspect, c.reported, c.reqEst = true, st.Usage.Input, st.RequestEstimate
			case st.Usage.Input <= 0:
				c.noUsage = true
			}
			return
		}
	}
}
