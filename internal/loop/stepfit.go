package loop

import (
	"context"
	"maps"

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
func (r *Runner) fitStep(ctx context.Context, e *message.Entry, calls []int) {
	snap := r.calc().Snapshot()
	usable := snap.Usable()
	if usable == 0 {
		return
	}
	point := snap.CompactAt
	if point <= 0 || point > usable {
		point = usable
	}
	est := r.calc().Estimator()
	sizes := make([]int64, len(calls))
	var step int64
	for i, ix := range calls {
		if st := e.Parts[ix].Tool; st != nil && st.Status != message.ToolPending && st.Status != message.ToolRunning {
			sizes[i] = int64(est.Count(st.Output))
			step += sizes[i]
		}
	}
	room := point - (snap.Total - step)
	budget := max(int64(float64(room)*stepFitShare), usable/8)
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
		path := st.FullOutputPath
		if path == "" {
			whole := st.RawOutput
			if whole == "" {
				whole = full
			}
			if saved, err := (truncate.Saver{Dir: r.opt.OutputDir}).SaveString(st.CallID, whole); err == nil {
				path = saved
			}
		}
		st.Output = kept + truncate.StepNotice(truncate.CountLines(kept), truncate.CountLines(full), len(full), path)
		st.Truncated = true
		st.FullOutputPath = path
		st.Metadata = maps.Clone(st.Metadata)
		if st.Metadata == nil {
			st.Metadata = map[string]any{}
		}
		st.Metadata["step_fit"] = map[string]int64{"tokens_before": sizes[i], "tokens_after": limits[i]}
		p.Tool = &st
		r.savePart(ctx, e, ix, p)
		r.calc().AddTokens(int64(est.Count(st.Output)) - sizes[i])
	}
}
