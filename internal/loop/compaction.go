package loop

// Compaction, as the loop runs it (the compactor's methods; compactor.go
// says what it is given). A compaction is a series of attempts,
// bounded by compact.Breaker: a summary written by small_model (or the main
// model), a second summary by the main model, and the model-free fallback
// (compact.PlanFallback) as the last resort. An attempt is applied only if
// it makes the request smaller than before (and than a request the
// provider refused); the series ends once the request is below the
// compaction point. Every attempt — applied, rejected or failed — is logged
// and announced, so `agent inspect` shows each one with its reason, tokens
// before → after and the model that wrote it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// ErrNothingToCompact is returned when the history has nothing to summarise.
var ErrNothingToCompact = errors.New("nothing to compact yet")

// maxSummaryChunks is how many requests a summary by small_model may take
// before the main model (with its larger window, usually) writes it instead.
const maxSummaryChunks = 8

// fitShare is the share of the compaction point (in percent) a compaction
// must bring the request under. A compaction that lands just below the
// point would be followed by another at the next step, and the next: that
// is compaction thrash. The summary keeps at most a quarter of the usable
// window as its tail, so a summary that works lands far below this.
const fitShare = 75

// maxSummaryShrinks bounds how often a summary request the provider refused
// for its size is made smaller (halved) and tried again within one attempt.
const maxSummaryShrinks = 2

// Compact summarises the session now (the /compact command and `agent
// compact`), with optional focus instructions. It fails if a turn is
// running.
func (r *Runner) Compact(ctx context.Context, focus string) error {
	return r.comp.compactNow(ctx, compactRequest{reason: compact.ReasonManual, focus: focus})
}

// CompactUpTo summarises everything sent before the message keepFrom and
// keeps it and everything after it verbatim ("summarise up to here" in the
// chat's picker), with optional focus instructions. It fails if a turn is
// running, or if the message is not after the newest summary.
func (r *Runner) CompactUpTo(ctx context.Context, keepFrom, focus string) error {
	return r.comp.compactNow(ctx, compactRequest{reason: compact.ReasonManual, focus: focus, keepFrom: keepFrom})
}

// CompactAfter summarises everything sent after the message keepTo and
// keeps everything sent up to and including it verbatim, before the
// summary ("summarise after here" in the chat's picker), with optional
// focus instructions. The summary carries on the previous one; no tail is
// kept; a later compaction summarises the head like any other old message.
// It fails if a turn is running, if the message is not sent, or if nothing
// is sent after it.
func (r *Runner) CompactAfter(ctx context.Context, keepTo, focus string) error {
	return r.comp.compactNow(ctx, compactRequest{reason: compact.ReasonManual, focus: focus, keepTo: keepTo})
}

// compactNow runs a compaction the user asked for while no turn runs: the
// runner is busy meanwhile, a message sent then waits for it (setIdle).
// A request that keeps a head or a tail by choice is planned first, so
// that a message out of range fails before anything is sent.
func (c *compactor) compactNow(ctx context.Context, req compactRequest) error {
	release, _, err := c.claim()
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	c.newTurn()
	if req.keepFrom != "" || req.keepTo != "" {
		_, err = c.makePlan(req)
	}
	if err == nil {
		err = c.compact(ctx, req)
	}
	res := TurnResult{FinishReason: "compacted"}
	if err != nil {
		res = TurnResult{FinishReason: FinishError, Err: err}
	}
	release(res)
	return err
}

// compactRequest says why a compaction runs.
type compactRequest struct {
	auto   bool
	reason string
	focus  string
	// midTask adds the synthetic continue after the compaction: it ran
	// between steps of a turn whose last message is not one the user just
	// wrote.
	midTask bool
	// keepFrom, when set, is the message from which the history stays
	// verbatim ("summarise up to here", CompactUpTo): the plan is the
	// user's, and any shrink is enough.
	keepFrom string
	// keepTo, when set, is the message up to which the history stays
	// verbatim before the summary ("summarise after here", CompactAfter):
	// the plan is the user's, and any shrink is enough.
	keepTo string
	// refused is our estimate of a request the provider refused for its
	// size (0: none); the compaction must bring the request below it. Such
	// a compaction is an emergency (CompactionState.Emergency): it runs
	// even with compaction.auto off.
	refused int64
	// summaryRetry is what the compaction's summary requests have spent
	// of their retry budget (summaryretry.go); compact sets it.
	summaryRetry *summaryBudget
}

// userPlan reports whether the user chose what stays verbatim (summarise
// up to or after here).
func (req compactRequest) userPlan() bool { return req.keepFrom != "" || req.keepTo != "" }

// errNotApplied marks an attempt that was logged but changed nothing.
var errNotApplied = errors.New("compaction attempt not applied")

// compact runs attempts until the request fits below the compaction point
// (and below a refused request), or the breaker's attempts are spent. It
// returns ErrNothingToCompact when there is nothing to summarise, and an
// error wrapping compact.ErrAttemptsSpent when the attempts are spent.
func (c *compactor) compact(ctx context.Context, req compactRequest) (err error) {
	if err := c.preHooks(ctx, req); err != nil {
		return err
	}
	defer func() { c.postHooks(ctx, req, err) }()
	req.summaryRetry = &summaryBudget{}
	// giveUp is compact.GiveUp for req: the limit the request had to get
	// under is the size the provider refused, else the compaction point.
	giveUp := func(cause error) error {
		limit := c.price().fitPoint()
		if req.refused > 0 && (limit <= 0 || req.refused < limit) {
			limit = req.refused
		}
		return compact.GiveUp(c.breaker.Made, cause, c.fixed(), limit)
	}
	var cause error
	applied := false
	for {
		kind := c.breaker.Next()
		if kind == compact.AttemptNone {
			if cause == nil {
				cause = errors.New("no attempt left")
			}
			return giveUp(cause)
		}
		c.breaker.Made++
		var err error
		if kind == compact.AttemptSummary {
			err = c.summaryAttempt(ctx, req)
			if err != nil {
				c.breaker.SummaryFailures++
			}
		} else {
			err = c.fallbackAttempt(ctx, req)
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errPrunedEnough):
			// The prune made the request fit: nothing was rewritten, so no
			// synthetic continue follows.
			return nil
		case errors.Is(err, ErrNothingToCompact):
			c.breaker.Made--
			switch {
			case req.refused > 0:
				// The provider refused the request and nothing is left to
				// compact: say what the user can do.
				if cause != nil {
					err = fmt.Errorf("%w; %w", ErrNothingToCompact, cause)
				}
				return giveUp(err)
			case applied:
				return c.afterCompaction(ctx, req)
			}
			return err
		case err != nil:
			cause = err
			continue
		}
		applied = true
		after := c.requestEstimate(c.history.entries())
		target := c.price().fitPoint() * fitShare / 100
		switch {
		case req.refused > 0 && after >= req.refused:
			cause = fmt.Errorf("the request is still %d tokens, not below the %d refused", after, req.refused)
		case target > 0 && after > target && !req.userPlan():
			cause = fmt.Errorf("the request is still %d tokens, over %d%% of the compaction point (%d)", after, fitShare, target)
		default:
			return c.afterCompaction(ctx, req)
		}
	}
}

// afterCompaction resumes the work after an automatic compaction in the
// middle of a task.
func (c *compactor) afterCompaction(ctx context.Context, req compactRequest) error {
	if req.auto && req.midTask {
		return c.continueTask(ctx)
	}
	return nil
}

// requestEstimate is our own count of the request history makes: the
// system prompt, the tool schemas and the visible messages, priced by the
// calibrated estimator or the plain one, whichever says more. It does not
// depend on a provider's reported usage, which may be wrong (a server that
// under-reports would otherwise keep the session from ever compacting).
func (c *compactor) requestEstimate(history []message.Entry) int64 {
	// What is priced is kept for the session's own history (the same
	// array), not for the histories a compaction or an undo would make.
	live := c.history.entries()
	own := len(history) == len(live) && (len(history) == 0 || &history[0] == &live[0])
	return c.withFixed(c.sent(history, own))
}

// calibratedRequestEstimate is our own count of the session's request
// priced by the calibrated estimator only (requestEstimate takes the
// plain estimate when it says more).
func (c *compactor) calibratedRequestEstimate() int64 {
	calibrated, _ := c.sent(c.history.entries(), true)
	return c.withFixed(calibrated, 0)
}

// withFixed is requestEstimate of a history whose messages the calibrated
// and the plain estimator price so: the system prompt, the tool schemas
// and the pins added to the larger.
func (c *compactor) withFixed(calibrated, plain int64) int64 {
	return c.fixed().Total() + max(calibrated, plain)
}

// summaryAttempt asks a model for a summary and applies it if it passes
// the checks; a summary that fails them is logged as rejected, a request
// that fails as failed.
func (c *compactor) summaryAttempt(ctx context.Context, req compactRequest) error {
	pr := c.price()
	if pr.cfg.Compaction.Prune {
		c.prune(ctx)
		// Decide again, as the turn decided, now that the cheaper measure
		// ran: a summary that saves nothing is not worth a paid call and
		// the verbatim history. The snapshot is the turn's decision's
		// (Runner.decisionReading), of the pruned history.
		s := c.price().snapshot()
		s.Total = max(s.Total, c.requestEstimate(c.history.entries()))
		if prunedEnough(req, pr.strategy, s) {
			return errPrunedEnough
		}
	}
	before := max(c.calc().Reading().Total, c.requestEstimate(c.history.entries()), req.refused)
	plan, err := c.makePlan(req)
	if err != nil {
		return err
	}
	if err := nothingToCompact(plan, req, c.calc().Estimator()); err != nil {
		return err
	}
	// The first summary comes from small_model if there is one; after a
	// failure the main model writes it.
	writer := pr.summaryModel()
	if c.breaker.SummaryFailures > 0 {
		writer = pr.model
	}
	state := &message.CompactionState{Auto: req.auto, Reason: req.reason, Focus: req.focus,
		TokensBefore: before, Attempt: c.breaker.Made, Model: writer, Emergency: req.refused > 0}
	if len(plan.Tail) > 0 {
		state.TailFrom = plan.Tail[0].Message.ID
	}
	if len(plan.Head) > 0 {
		state.HeadUpTo = plan.Head[len(plan.Head)-1].Message.ID
	}
	c.emit(message.Event{Type: message.EventCompacting, SessionID: c.session(), Summarising: len(plan.Summarize), Compaction: state})
	var spent summaryCost
	text, writer, err := c.sum.summarise(ctx, plan, req.focus, writer, req.summaryRetry, &spent)
	state.Model = writer
	pr = c.price()
	if writer != pr.model && writer == pr.cfg.SmallModel && ctx.Err() == nil {
		smallModelMarks(pr.cfg).Observe(writer, err, time.Now())
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		state.Outcome, state.Error = message.CompactionFailed, err.Error()
		if errors.Is(err, compact.ErrEmptySummary) || errors.Is(err, compact.ErrSummaryLong) {
			state.Outcome = message.CompactionRejected
		}
		state.TokensAfter = before
		return c.notApplied(ctx, state, fmt.Errorf("summarise: %w", err))
	}
	body := compact.ComposeSummary(text, plan.UserMessages)
	// What the summary replaces is the total less what stays: the system
	// prompt, the tool schemas and the tail.
	replaced := before - c.fixed().Total() - c.calc().EstimateEntries(plan.Tail)
	after := c.requestEstimate(c.withSummary(state, body, writer))
	state.TokensAfter = after
	verr := compact.CheckSummary(text, int64(pr.est.Count(text)), replaced)
	if verr == nil {
		verr = compact.Validate(body, before, after)
	}
	if verr != nil {
		state.Outcome, state.Error = message.CompactionRejected, verr.Error()
		return c.notApplied(ctx, state, fmt.Errorf("compaction rejected: %w", verr))
	}
	state.Outcome = message.CompactionSummary
	if err := c.apply(ctx, state, body, writer, spent, "compaction", pr.info.ReasoningRoundtrip); err != nil {
		return err
	}
	c.failedAt = 0
	return nil
}

// fallbackAttempt compacts without a model: tool outputs outside the tail
// are cleared and the oldest turns stop being sent until the history fits
// half the compaction point (room for the turns to come).
func (c *compactor) fallbackAttempt(ctx context.Context, req compactRequest) error {
	history := c.history.entries()
	before := max(c.calc().Reading().Total, c.requestEstimate(history), req.refused)
	pr := c.price()
	point := pr.fitPoint()
	budget := max(point/2-c.fixed().Total(), point/8)
	f, ok := compact.PlanFallback(history, pr.est, pr.planOptions(), budget)
	if req.userPlan() {
		// The user chose what stays verbatim: no model-free dropping.
		return errors.New("summarising up to or after a message needs a summary, and none could be written")
	}
	if err := nothingToCompact(compact.MakePlan(history, pr.est, pr.planOptions()), req, c.calc().Estimator()); err != nil {
		return err
	}
	if !ok {
		return ErrNothingToCompact
	}
	state := &message.CompactionState{Auto: req.auto, Reason: req.reason, Focus: req.focus,
		TokensBefore: before, Attempt: c.breaker.Made, TailFrom: f.KeepFrom,
		DroppedTurns: f.DroppedTurns, Note: f.Note, Emergency: req.refused > 0}
	if err := c.markCompacted(ctx, f.Prune); err != nil {
		state.Outcome, state.Error = message.CompactionFailed, err.Error()
		return c.notApplied(ctx, state, err)
	}
	after := c.requestEstimate(c.withSummary(state, f.Body, ""))
	state.TokensAfter = after
	if err := compact.Validate(f.Body, before, after); err != nil {
		state.Outcome, state.Error = message.CompactionRejected, err.Error()
		return c.notApplied(ctx, state, fmt.Errorf("fallback compaction: %w", err))
	}
	state.Outcome = message.CompactionFallback
	if err := c.apply(ctx, state, f.Body, "", summaryCost{}, "compaction_fallback", pr.info.ReasoningRoundtrip); err != nil {
		return err
	}
	c.failedAt = 0
	return nil
}

// makePlan is the compaction's plan: the user's split for "summarise up
// to here" or "summarise after here", else MakePlan's.
func (c *compactor) makePlan(req compactRequest) (compact.Plan, error) {
	history, pr := c.history.entries(), c.price()
	if req.keepTo != "" {
		p, err := compact.PlanAfter(history, pr.est, pr.planOptions(), req.keepTo)
		if err != nil {
			return compact.Plan{}, fmt.Errorf("summarise after message %s: %w", req.keepTo, err)
		}
		if len(p.Summarize) == 0 {
			return compact.Plan{}, fmt.Errorf("summarise after message %s: %w", req.keepTo, ErrNothingToCompact)
		}
		return p, nil
	}
	if req.keepFrom != "" {
		p, err := compact.PlanUpTo(history, pr.est, pr.planOptions(), req.keepFrom)
		if err != nil {
			return compact.Plan{}, fmt.Errorf("summarise up to message %s: %w", req.keepFrom, err)
		}
		return p, nil
	}
	return compact.MakePlan(history, pr.est, pr.planOptions()), nil
}

// nothingToCompact says why a plan leaves nothing worth compacting (nil
// when it does not): an error wrapping ErrNothingToCompact. There is
// nothing when there is nothing to summarise, or, when the user asked,
// when only what the user wrote is left (a session of one turn: the
// summary keeps it word for word) or when the range costs no more than a
// summary of it would (compact.NotWorthSummarising: a short conversation).
// An automatic compaction still summarises a lone user message or a small
// range: it runs because the window is full.
func nothingToCompact(plan compact.Plan, req compactRequest, est tokens.Estimator) error {
	if len(plan.Summarize) == 0 {
		return fmt.Errorf("%w: %s", ErrNothingToCompact, compact.NotWorthSummarising(compact.Preview{Nothing: true}))
	}
	if req.auto {
		return nil
	}
	onlyUser := true
	for _, e := range plan.Summarize {
		if e.Message.Role != message.RoleUser {
			onlyUser = false
			break
		}
	}
	if onlyUser {
		return fmt.Errorf("%w: only your own messages would be summarised, and a summary keeps those word for word", ErrNothingToCompact)
	}
	if why := compact.NotWorthSummarising(compact.PreviewOf(plan, est)); why != "" {
		return fmt.Errorf("%w: %s", ErrNothingToCompact, why)
	}
	return nil
}

// withSummary returns the history as it will be once a compaction with
// this state and summary body is stored, to measure it before writing
// anything.
func (c *compactor) withSummary(state *message.CompactionState, body, model string) []message.Entry {
	return withSummaryOf(c.history.entries(), c.session(), state, body, model)
}

// withSummaryOf is withSummary for any history.
func withSummaryOf(history []message.Entry, sessionID string, state *message.CompactionState, body, model string) []message.Entry {
	marker := message.Message{SessionID: sessionID, Role: message.RoleUser, Synthetic: true}
	summary := message.Message{SessionID: sessionID, Role: message.RoleAssistant, Summary: true, Model: model}
	return append(append([]message.Entry(nil), history...),
		message.Entry{Message: marker, Parts: []message.Part{{Type: message.PartCompaction, Compaction: state}}},
		message.Entry{Message: summary, Parts: []message.Part{{Type: message.PartText, Text: body}}})
}

// learnFromRefusal records what a context-length error teaches: the
// ceiling on requests (in our estimate, kept in ceiling), which lowers the
// compaction point for the rest of the session, and the disagreement
// between our count, the calculator's total and what the provider said,
// in the event log (`agent inspect` shows it).
func (c *compactor) learnFromRefusal(ctx context.Context, ceiling *atomic.Int64, err error, refused, total int64) {
	limit, prompt := provider.ContextLimit(err)
	n := compact.Ceiling(refused, limit, prompt, c.calc().Reading().Window)
	if old := ceiling.Load(); old > 0 && (n == 0 || old < n) {
		n = old
	}
	ceiling.Store(n)
	pr := c.price() // with the ceiling just learnt
	_ = c.store.LogEvent(context.WithoutCancel(ctx), c.session(), "context_limit", message.ContextLimit{
		Model: pr.model, RefusedEstimate: refused, CalculatorTotal: total,
		StatedLimit: limit, StatedPrompt: prompt, Ceiling: n, CompactAt: pr.fitPoint(),
	})
}

// restoreCeiling reads back into ceiling what earlier refusals taught
// about the session's model.
func (c *compactor) restoreCeiling(ctx context.Context, ceiling *atomic.Int64) {
	ceiling.Store(0)
	log, err := c.store.ListEventLogKind(ctx, c.session(), "context_limit")
	if err != nil {
		return
	}
	model := c.price().model
	var n int64
	for _, l := range log {
		var cl message.ContextLimit
		if l.Kind != "context_limit" || json.Unmarshal(l.Data, &cl) != nil || cl.Model != model || cl.Ceiling <= 0 {
			continue
		}
		if n == 0 || cl.Ceiling < n {
			n = cl.Ceiling
		}
	}
	ceiling.Store(n)
}

// prune marks old tool outputs compacted when that frees enough.
func (c *compactor) prune(ctx context.Context) {
	pr := c.price()
	res := prune.Pass(Visible(c.history.entries()), pr.est, pr.pruneOptions())
	if len(res.PartIDs) == 0 {
		return
	}
	own := c.calibratedRequestEstimate()
	if err := c.markCompacted(ctx, res.PartIDs); err != nil {
		c.emit(message.Event{Type: message.EventError, SessionID: c.session(), Err: fmt.Sprintf("prune: %v", err)})
		return
	}
	// The row starts from the calculator's total or our own calibrated
	// count of the request, whichever is more, and takes off what the
	// calculator takes off: a provider under-reporting usage cannot make
	// it read "1303 → 0".
	before := max(c.calc().Reading().Total, own)
	removed := c.calc().RemoveEstimate(res.TokensSaved)
	after := max(c.calc().Reading().Total, before-removed)
	info := &message.PruneInfo{Parts: res.Parts, TokensSaved: res.TokensSaved, TokensBefore: before, TokensAfter: after}
	_ = c.store.LogEvent(ctx, c.session(), "prune", info)
	c.emit(message.Event{Type: message.EventPruned, SessionID: c.session(), Prune: info})
}
