package loop

import (
	"context"
	"fmt"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// ReadSnapshot computes a session's context snapshot without driving it
// (no lease, no repair, no write): the calculation Open makes, for the
// read-only commands. A running session's own Snapshot reports the same
// figures.
func ReadSnapshot(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (tokens.Snapshot, *message.Session, error) {
	sess, err := st.GetSession(ctx, sessionID)
	if err != nil {
		return tokens.Snapshot{}, nil, fmt.Errorf("session %s: %w", sessionID, err)
	}
	history, err := st.LoadHistory(ctx, sess.ID)
	if err != nil {
		return tokens.Snapshot{}, nil, fmt.Errorf("load session %s: %w", sess.ID, err)
	}
	model := sess.Model
	if model == "" {
		model = cfg.Model
	}
	r := &Runner{opt: Options{Config: cfg, Tools: reg}, sess: *sess, history: history}
	r.setModel(model)
	r.system = SystemPrompt(DetectEnvironment(ctx, sess.Dir, config.UserAgentsFile(getenv)))
	sys, tl := r.fixedTokens()
	calc := tokens.Restore(r.calcOptions(), r.est, sys, tl, history)
	pins, err := st.ListPins(ctx, sess.ID)
	if err != nil {
		return tokens.Snapshot{}, nil, fmt.Errorf("load session %s: %w", sess.ID, err)
	}
	calc.InitPins(pinsTokens(pins, r.est))
	return calc.Snapshot(), sess, nil
}

// recountAfterInterrupt rebuilds the calculator from the history as stored
// after an interrupt: the partial text, the interrupted tool outputs and
// the results kept were written outside the calculator's step accounting,
// and the running session must report what ReadSnapshot (`agent context`,
// a reopened session) computes from the same rows. Only the loop calls it,
// while it holds busy.
func (r *Runner) recountAfterInterrupt() {
	r.restoreCalculator()
}

// strategyCompactAt adapts a strategy for the calculator's display.
func strategyCompactAt(s compact.Strategy) func(window, reserve int64) int64 {
	return s.CompactAt
}
