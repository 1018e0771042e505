package loop

import (
	"context"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// stepDepsOf is what Open gives the session's stepper: r's values, and
// funcs over the state r and its other collaborators own. It is the one
// place the stepper meets the Runner; the stepper keeps no *Runner.
func stepDepsOf(r *Runner) stepDeps {
	return stepDeps{
		opt: r.opt, store: r.store, sessionID: r.state.id(), toolEnv: r.toolEnv,

		history:         func() []message.Entry { return r.state.history },
		historyMark:     r.state.historyMark,
		system:          func() []string { return r.state.system },
		appendEntry:     r.state.appendEntry,
		replaceEntry:    r.state.replaceEntry,
		modelPricing:    func() modelPricing { return r.mp },
		calc:            r.calcp.Load,
		fixedTokens:     r.fixedTokens,
		pinsNow:         func() (string, int64) { return pinsNow(r.state.pinsCopy(), r.mp.est) },
		emit:            r.ev.emit,
		addSessionUsage: usageAdder(r.state, r.store, r.ev),

		decisionReading: r.decisionReading,
		withFixed:       func(calibrated, plain int64) int64 { return r.comp.withFixed(calibrated, plain) },
		compactAfterRefusal: func(ctx context.Context, steps int, err error, estimate int64) error {
			refused := r.comp.requestEstimate(r.state.history)
			r.comp.learnFromRefusal(ctx, &r.stepper.ceiling, err, refused, estimate)
			return r.comp.compact(ctx, compactRequest{auto: true, reason: compact.ReasonContextError, midTask: r.midTask(steps), refused: refused})
		},
		requestThrough: func() { r.comp.wentThrough() },

		// r.cp is made after the stepper (newCheckpointer asks its registry).
		checkpointTools: func(ctx context.Context, e *message.Entry, calls []int, run func()) {
			r.cp.aroundTools(ctx, e, calls, run)
		},
		checkCall: func(ctx context.Context, call tools.Call) (bool, string, error) {
			return r.hooks.checkCall(ctx, call, r.stepper.registry(), r.toolEnv) // knows the gated (MCP) tools
		},
		postToolHooks: r.hooks.postTool,
		takeStopTurn:  r.hooks.takeStopTurn,
		recordProcess: func(ctx context.Context, e *message.Entry, ix int, g tools.ProcessGroup) {
			recordProcess(ctx, r.stepper, e, ix, g)
		},
		firstRequest: r.trace.firstRequest,
		firstByte:    r.trace.firstByte,

		withSession: func(fn func(busy bool, history []message.Entry, system []string)) {
			r.turns.locked(func(busy bool) { fn(busy, r.state.history, r.state.system) })
		},
		modelSteady: func(fn func()) {
			r.state.sessWrite.Lock() // SetModel changes the model under it
			defer r.state.sessWrite.Unlock()
			fn()
		},
		busy: r.Busy,
	}
}
