package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// The read-only commands (`agent context`, `agent sessions`, `agent
// compact --dry-run`) price a stored session with the functions a running
// one uses (pricing.go), from its stored rows: no Runner, no lease, no
// repair, no write and no git. The system prompt is counted as the
// running session last counted it: each turn that ends records its
// count, for its model, in the event log (a system_tokens row, written
// only when it changed); a session with none recorded for its model is
// counted with the stable prompt and the instruction files (no git
// status).

// StoredReading computes a stored session's context reading without driving it
// (no lease, no repair, no write): the calculation Open makes, for the
// read-only commands. A running session's own Reading reports the same
// figures.
func StoredReading(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (tokens.Reading, *message.Session, error) {
	s, err := readStored(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return tokens.Reading{}, nil, err
	}
	return withMemoryRow(ctx, st, s.sess.Dir, withPromptLines(s.pr.calc.Reading())), &s.sess, nil
}

// ReadPreview is Preview for a session nobody needs to drive (`agent
// compact --dry-run`): read only, no request.
func ReadPreview(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (CompactPreview, error) {
	s, err := readStored(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return CompactPreview{}, err
	}
	return previewOf(s.pr, s.history, s.pins, s.sess.ID), nil
}

// ReadContext is StoredReading with what undoing context management would
// cost (the restore_tokens of `agent context`).
func ReadContext(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (tokens.Reading, RestoreCost, *message.Session, error) {
	s, err := readStored(ctx, st, cfg, reg, sessionID)
	if err != nil {
		return tokens.Reading{}, RestoreCost{}, nil, err
	}
	return withMemoryRow(ctx, st, s.sess.Dir, withPromptLines(s.pr.calc.Reading())), restoreCostOf(s.history, s.requestEstimate, s.pr.fitPoint()), &s.sess, nil
}

// storedSession is a session as stored, with its pricing: what the
// read-only commands compute from. It is never driven.
type storedSession struct {
	sess          message.Session
	history       []message.Entry
	pins          []message.Pin
	pr            pricing
	system, tools int64 // the fixed tokens (fixedTokensOf)
}

// requestEstimate is Runner.requestEstimate of a stored session.
func (s *storedSession) requestEstimate(history []message.Entry) int64 {
	var none requestCache
	calibrated, plain := none.estimate(history, false, s.pr.calc, s.pr.est)
	_, todoTokens := todoNow(history, s.pr.est)
	return s.system + s.tools + pinsTokens(s.pins, s.pr.est) + todoTokens + max(calibrated, plain)
}

// readStored loads a session's history and pins and prices them as Open
// restores them, without a Runner, a lease, a repair or a write.
func readStored(ctx context.Context, st *storage.Store, cfg *config.Config, reg *tools.Registry, sessionID string) (*storedSession, error) {
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
	m := newModelPricing(cfg, sess.Model, nil)
	s := &storedSession{sess: *sess, history: history, pins: pins}
	_, s.tools = fixedTokensOf(nil, sessionTools(Options{Tools: reg}, st, sess.ID, sess.Dir), m.info.NoTools, m.est)
	if rec, ok := recordedSystem(ctx, st, sess.ID); ok && rec.Model == sess.Model {
		s.system = rec.Tokens
	} else {
		s.system, _ = fixedTokensOf(SystemPrompt(storedEnvironment(ctx, sess.Dir)), nil, true, m.est)
	}
	s.pr = pricing{modelPricing: m, cfg: cfg, calc: m.restoreCalculator(s.system, s.tools, history, pins)}
	return s, nil
}

// strategyCompactAt adapts a strategy for the calculator's display.
func strategyCompactAt(s compact.Strategy) func(window, reserve int64) int64 {
	return s.CompactAt
}

// systemTokensKind is the event log row recording the system prompt's
// count (systemCount) at the end of a turn.
const systemTokensKind = "system_tokens"

// systemCount is the system prompt's token count for a model, as the
// running session's calculator counted it (fixedTokensOf).
type systemCount struct {
	Model  string `json:"model"`
	Tokens int64  `json:"tokens"`
}

// recordedSystem is the newest system prompt count recorded for a
// session; ok is false when there is none.
func recordedSystem(ctx context.Context, st *storage.Store, sessionID string) (c systemCount, ok bool) {
	row, ok, err := st.LatestEventLogKind(ctx, sessionID, systemTokensKind)
	if err != nil || !ok {
		return c, false
	}
	return c, json.Unmarshal(row.Data, &c) == nil
}

// storedEnvironment is the environment a stored session is priced with
// when no count was recorded: the directory, the date and the
// instruction files, no git status.
func storedEnvironment(ctx context.Context, dir string) Environment {
	env := Environment{Dir: dir, Date: time.Now()}
	readInstructions(ctx, &env, instructionFiles(dir, config.UserAgentsFile(getenv)))
	return env
}
