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
		opt: r.opt, store: r.store, sessionID: r.sess.ID, toolEnv: r.toolEnv,

		history: func() []message.Entry { return r.history },
		system:  func() []string { return r.system },
		appendEntry: func(e message.Entry) {
			r.mu.Lock()
			r.history = append(r.history, e)
			r.mu.Unlock()
		},
		replaceEntry: func(e message.Entry) {
			r.mu.Lock()
			defer r.mu.Unlock()
			for i := len(r.history) - 1; i >= 0; i-- {
				if r.history[i].Message.ID == e.Message.ID {
					r.history[i] = e
					return
				}
			}
		},
		modelPricing:    r.modelPricing,
		calc:            r.calc,
		fixedTokens:     r.fixedTokens,
		pinsNow:         r.pinsNow,
		emit:            r.emit,
		addSessionUsage: r.addSessionUsage,

		decisionSnapshot: r.decisionSnapshot,
		withFixed:        func(calibrated, plain int64) int64 { return r.comp.withFixed(calibrated, plain) },
		compactAfterRefusal: func(ctx context.Context, steps int, err error, estimate int64) error {
			refused := r.comp.requestEstimate(r.history)
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
		recordProcess: r.recordProcess,
		firstRequest:  r.trace.firstRequest,
		firstByte:     r.trace.firstByte,

		withSession: func(fn func(busy bool, history []message.Entry, system []string)) {
			r.mu.Lock()
			defer r.mu.Unlock()
			fn(r.busy, r.history, r.system)
		},
		modelSteady: func(fn func()) {
			r.sessWrite.Lock() // SetModel changes the model under it
			defer r.sessWrite.Unlock()
			fn()
		},
		busy: r.Busy,
	}
}
