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
	r, err := readRunner(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return tokens.Snapshot{}, nil, err
	}
	sess := r.sess
	return r.calc().Snapshot(), &sess, nil
}

// ReadPreview is Preview for a session nobody needs to drive (`agent
// compact --dry-run`): read only, no request.
func ReadPreview(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (CompactPreview, error) {
	r, err := readRunner(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return CompactPreview{}, err
	}
	return r.Preview()
}

// ReadContext is ReadSnapshot with what undoing context management would
// cost (the restore_tokens of `agent context`).
func ReadContext(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (tokens.Snapshot, RestoreCost, *message.Session, error) {
	r, err := readRunner(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return tokens.Snapshot{}, RestoreCost{}, nil, err
	}
	return r.calc().Snapshot(), r.restoreCost(), &r.sess, nil
}

// readRunner loads a session into a Runner that is never driven: its
// history, pins and calculator, as Open restores them, without a lease,
// a repair or a write.
func readRunner(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (*Runner, error) {
	sess, err := st.GetSession(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", sessionID, err)
	}
	history, err := st.LoadHistory(ctx, sess.ID)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
	}
	pins, err := st.ListPins(ctx, sess.ID)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
	}
	model := sess.Model
	if model == "" {
		model = cfg.Model
	}
	r := &Runner{opt: Options{Config: cfg, Tools: sessionTools(Options{Tools: reg}, st, sess.ID)}, sess: *sess, history: history, pins: pins}
	r.tt.base = r.opt.Tools
	r.setModel(model)
	r.system = SystemPrompt(DetectEnvironment(ctx, sess.Dir, config.UserAgentsFile(getenv)))
	sys, tl := r.fixedTokens()
	calc := tokens.Restore(r.calcOptions(), r.est, sys, tl, history)
	calc.InitPins(pinsTokens(pins, r.est))
	r.calcp.Store(calc)
	return r, nil
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
