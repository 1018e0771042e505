package loop

import (
	"context"
	"maps"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
)

// A step's results may take this share of the room left below the
// compaction point: they are new text the session's calibration has not
// seen (numbers and logs run 20–30% over chars/4), and the next request
// should go out without compacting right away.
const stepFitShare = 0.8

// fitStep bounds what the tool results of one step add to the context.
// Each result is already capped on its own (tier 1), but six capped reads in
// one step can still be three windows' worth, and then neither the next
// request nor a summary request fits. The step may take most of the room left
// below the compaction point (stepFitShare), or an eighth of the usable window when less is left
// (compaction then makes room and keeps the step in its verbatim tail).
// Older results are cut first (truncate.FitStep), each to its head with a
// notice saying where the whole output is saved; nothing is lost.
func (sp *stepper) fitStep(ctx context.Context, e *message.Entry, calls []int) {
	snap := sp.calc().Reading()
	usable := snap.Usable()
	if usable == 0 {
		return
	}
	est := sp.calc().Estimator()
	sizes := make([]int64, len(calls))
	var step int64
	for i, ix := range calls {
		if st := e.Parts[ix].Tool; st != nil && st.Status != message.ToolPending && st.Status != message.ToolRunning {
			sizes[i] = int64(est.Count(st.Output))
			step += sizes[i]
		}
	}
	budget := stepBudget(snap, step)
	if step <= budget {
		return
	}
	limits := truncate.FitStep(sizes, budget, max(usable/64, 64))
	for i, ix := range calls {
		if limits[i] >= sizes[i] || sizes[i] == 0 {
			continue
		}
		p := e.Parts[ix]
		st := *p.Tool
		full := st.Output
		keepBytes := int(int64(len(full)) * limits[i] / sizes[i])
		kept, _ := truncate.Apply(full, 0, keepBytes)
		if len(kept) < keepBytes/2 {
			// The next line is long (JSON, a minified file): whole lines
			// would leave the header alone. Cut inside it.
			kept = cutAt(full, keepBytes)
		}
		path := st.FullOutputPath
		if path == "" {
			whole := st.RawOutput
			if whole == "" {
				whole = full
			}
			if saved, err := (truncate.Saver{Dir: sp.opt.OutputDir}).SaveString(st.CallID, whole); err == nil {
				path = saved
			}
		}
		shown := truncate.CountLines(kept)
		if kept != "" && kept[len(kept)-1] != '\n' && len(kept) < len(full) {
			shown-- // its last line was cut: reading on starts with it
		}
		st.Output = kept + truncate.StepNotice(shown, truncate.CountLines(full), len(full), path)
		st.Truncated = true
		st.FullOutputPath = path
		st.Metadata = maps.Clone(st.Metadata)
		if st.Metadata == nil {
			st.Metadata = map[string]any{}
		}
		st.Metadata["step_fit"] = map[string]int64{"tokens_before": sizes[i], "tokens_after": limits[i]}
		p.Tool = &st
		sp.savePart(ctx, e, ix, p)
		sp.calc().AddTokens(int64(est.Count(st.Output)) - sizes[i])
	}
}

// stepBudget is the room, in tokens, the results of a step may take
// together: most of what is left below the compaction point once the step
// (step tokens of results, included in snap.Total) is taken out, or an
// eighth of the usable window when less is left.
func stepBudget(snap tokens.Reading, step int64) int64 {
	usable := snap.Usable()
	point := snap.CompactAt
	if point <= 0 || point > usable {
		point = usable
	}
	room := point - (snap.Total - step)
	return max(int64(float64(room)*stepFitShare), usable/8)
}

// resultRoomBytesPerToken converts the step budget into bytes for a tool
// that fits its own result (tools.ResultRoom): below the chars/4 the
// estimator starts from, so that a result fitted to it is not cut again.
const resultRoomBytesPerToken = 3

// resultRoom is the room, in bytes, one result of the next step may take
// without fitStep cutting it (0: unknown window).
func resultRoom(snap tokens.Reading) int {
	if snap.Usable() == 0 {
		return 0
	}
	return int(stepBudget(snap, 0) * resultRoomBytesPerToken)
}

// cutAt returns the beginning of s within n bytes, cut at a rune boundary.
func cutAt(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
