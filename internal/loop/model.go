package loop

// model.go: the session's model and its token calculator: what a step,
// the compaction decision and the status bar price with. r.mp is written
// under state.mu while no turn runs (SetModel fails while busy); the loop
// reads it without the lock.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// setModel picks the model's limits, estimator and compaction strategy
// (newModelPricing).
func (r *Runner) setModel(model string) {
	m := newModelPricing(r.opt.Config, model, r.opt.Estimator)
	r.state.mu.Lock()
	r.mp = m
	r.state.mu.Unlock()
}

func (r *Runner) restoreCalculator() {
	sys, tl := r.fixedTokens()
	calc := r.mp.restoreCalculator(sys, tl, r.state.history, r.Pins())
	r.calcp.Store(calc)
	calc.SetLogger(func(estimate, actual int64) {
		_ = r.store.LogEvent(context.Background(), r.state.id(), "estimate", map[string]int64{"estimate": estimate, "actual": actual})
	})
}

// fixedTokens estimates the system prompt and the tool schemas.
func (r *Runner) fixedTokens() (system, tools int64) {
	return fixedTokensOf(r.state.system, r.stepper.offered(), r.stepper.toolsOff(r.mp.model), r.mp.est)
}

// Reading returns the token calculator's reading: the one figure the
// status bar, /context, `agent context` and the compaction trigger share.
// Its compaction point is lowered when the provider refused a request
// (compact.LowerPoint).
func (r *Runner) Reading() tokens.Reading {
	// Atomics only: the TUI reads it while the loop runs.
	// The skills row (skills.go) and the memory row (memoryprompt.go)
	// are fixed for the session.
	s := r.opt.Skills.row(pricing{ceiling: r.stepper.ceiling.Load(), calc: r.calcp.Load()}.snapshot())
	s.Breakdown.PromptLines.Memory = r.opt.memoryTokens
	return s
}

// CompactAt is the total at which automatic compaction starts (0: never
// automatically).
func (r *Runner) CompactAt() int64 { return r.Reading().CompactAt }

// SetModel switches the session to another model (the /model command). It
// fails while a turn runs. The calculator is rebuilt for the new model's
// window; the last call's usage still anchors it.
func (r *Runner) SetModel(ctx context.Context, model string) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return errors.New("set model: empty name")
	}
	r.state.sessWrite.Lock()
	defer r.state.sessWrite.Unlock()
	var s message.Session
	busy := false
	r.turns.locked(func(b bool) { // the session state's lock
		if busy = b; !b {
			r.state.sess.Model = model
			s = r.state.sess
		}
	})
	if busy {
		return errors.New("set model: the agent is busy; wait for the turn to end or cancel it")
	}
	if err := r.store.UpdateSession(ctx, &s); err != nil {
		return fmt.Errorf("set model: %w", err)
	}
	r.setModel(model)
	r.stepper.refreshTools() // the tools offered follow the new window
	r.restoreCalculator()
	r.comp.restoreCeiling(ctx, &r.stepper.ceiling)
	r.ev.emit(message.Event{Type: message.EventSessionUpdated, SessionID: s.ID, Session: &s})
	return nil
}

// Model returns the model the session uses now.
func (r *Runner) Model() string {
	r.state.mu.Lock()
	defer r.state.mu.Unlock()
	return r.mp.model
}

// ModelKnown reports whether the model's limits come from the catalog or
// the config rather than conservative defaults.
func (r *Runner) ModelKnown() bool {
	_, known := r.opt.Config.ModelInfo(r.Model())
	return known
}
