package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// Runner drives one session: it keeps the turn order (run, turn) and
// hands each part of it to a collaborator with its own type (doc.go's
// table); its exported methods are the session's API, most of them
// delegates.
type Runner struct {
	opt     Options
	store   *storage.Store
	toolEnv *tools.Env
	// state is the session, its history, system prompt, pins and notes,
	// and its lease (session.go); one lock, state.mu.
	state *sessionState
	// turns claims and releases the session for a turn or another busy
	// period (turn.go); its fields are guarded by state.mu.
	turns *turnControl
	ev    emitter // the loop's events (events.go)
	// mp is what the session's model prices with (model.go); SetModel
	// replaces it while idle, under state.mu.
	mp modelPricing
	// calcp holds the token calculator; SetModel replaces it while the
	// TUI may be reading it.
	calcp atomic.Pointer[tokens.Calculator]
	// stepper runs the steps: their requests, tools and usage (stepper.go).
	stepper *stepper
	titles  *titler // the background small_model title request
	cp      *checkpointer
	// comp manages the context: deciding compaction, summarising,
	// pruning, undo and summary edit (compactor.go).
	comp  *compactor
	hooks *hookPoints // the user's hooks (hooks.go)
	inbox *inbox      // @mentions and the queue's delivery (steer.go)
	trace startupTrace
}

// Open opens a session to drive it: sessionID "" creates a new one. It takes
// the session's lease (failing with storage.ErrSessionBusy if another live
// process drives it), repairs what a crash left, and loads the history.
func Open(ctx context.Context, opt Options, sessionID string) (*Runner, error) {
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	if opt.Retry.Attempts == 0 {
		opt.Retry = DefaultRetryPolicy
	}
	if opt.Sleep == nil {
		opt.Sleep = sleepCtx
	}
	st := opt.Store
	var sess *message.Session
	var lease *storage.Lease
	unsaved := false
	switch {
	case sessionID == "" && opt.RowOnFirstMessage:
		ts := time.Now()
		sess = &message.Session{ID: message.NewID(), Model: opt.Config.Model, Dir: opt.Dir, CreatedAt: ts, UpdatedAt: ts}
		unsaved = true
	case sessionID == "":
		sess = &message.Session{Model: opt.Config.Model, Dir: opt.Dir}
		l, err := st.CreateSessionLeased(ctx, sess) // one write
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		lease = l
	default:
		s, err := st.GetSession(ctx, sessionID)
		if err != nil {
			return nil, fmt.Errorf("open session %s: %w", sessionID, err)
		}
		sess = s
		if lease, err = acquireRepaired(ctx, st, sess.ID); err != nil { // openrepair.go
			return nil, err
		}
	}
	opt.Tools = sessionTools(opt, st, sess.ID, cmp.Or(sess.Dir, opt.Dir))
	opt.memoryTokens = 0
	withMemory(ctx, &opt, st, cmp.Or(sess.Dir, opt.Dir)) // memoryprompt.go
	if opt.Ledger == nil {
		opt.Ledger = budget.New(opt.MaxCostUSD, sess.CostUSD)
	}
	r := &Runner{opt: opt, store: st, trace: startupTrace{report: opt.StartupTrace}}
	r.state = &sessionState{sess: *sess, lease: lease, unsaved: unsaved}
	r.ev = emitter{store: st, observer: opt.Observer, session: sess.ID, keep: r.state.addNote}
	r.turns = newTurnControl(&r.state.mu.Mutex, turnDepsOf(r))
	r.comp = runnerCompactor(r)
	// A session made just now has nothing to repair, load or restore:
	// the first message's request does not wait for those reads.
	if sessionID != "" {
		var err error
		if r.state.history, err = openHistory(ctx, st, sess.ID); err != nil { // what it sends (openwindow.go)
			lease.Release()
			return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
		}
		if !opt.NonInteractive { // a headless run holds it only while it runs
			packHistory(r.state.history, sess.ID) // held densely (historypack.go)
		}
		if r.state.pins, err = st.ListPins(ctx, sess.ID); err != nil {
			lease.Release()
			return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
		}
		r.state.git.start = storedGitStart(ctx, st, sess.ID) // the system messages' git status (envcontext.go)
	}
	dir := sess.Dir
	if dir == "" {
		dir = opt.Dir
	}
	r.toolEnv = &tools.Env{Dir: dir, OutputDir: opt.OutputDir, Limits: limitsOf(opt.Config), Files: tools.NewFileTracker(), Secrets: secretValues(opt.Config), AskFrom: opt.AskFrom,
		CodeFiles: slices.Concat(opt.Hooks.RepositoryFiles(dir), opt.CodeFiles), // what a hook runs is code: writing it asks
		Jobs:      jobsOf(opt), Groups: opt.Children,
		Sandbox: opt.Sandbox, AskOutside: opt.Perms.AskOutside, // bash's sandbox (tools/sandboxed.go)
		Edits:  editObserver(opt.LSP), // diagnostics after write and edit (wiring.go)
		Editor: opt.Editor}
	wire(r, dir) // the hook points, the stepper, the inbox, the titler (wiring.go)
	if c := opt.Config; sessionID != "" && c.ModelExplicit && c.Model != sess.Model {
		// --model or AGENT_MODEL switches a resumed session's model; a
		// model from a config file only applies to new sessions.
		if _, err := r.state.write(ctx, st, func(s *message.Session) error { s.Model = c.Model; return nil }); err != nil {
			lease.Release()
			return nil, fmt.Errorf("open session %s: %w", sess.ID, err)
		}
	}
	r.setModel(r.state.sess.Model)
	r.stepper.refreshTools()
	r.cp = newCheckpointer(ctx, runnerCheckpointDeps(r, dir))
	r.trace.phase("session", time.Time{})
	openPrompt(ctx, r.state, opt.Environment, dir, systemOf(opt.SystemPrompt, r.hooks, opt.Skills), r.ev.note, r.trace.phase)
	r.state.system = r.hooks.sessionStart(ctx, sessionID != "", r.mp.model, r.state.system)
	r.restoreCalculator()
	if sessionID != "" {
		r.comp.restoreCeiling(ctx, &r.stepper.ceiling)
	}
	return r, nil
}

// Session returns the session as it is now.
func (r *Runner) Session() message.Session { return r.state.session() }

// Busy reports whether the loop is running.
func (r *Runner) Busy() bool { return r.turns.isBusy() }

// Send gives the session a user message. When the loop is idle the message
// is persisted and a turn starts; when it is busy the message is queued to
// steer the running turn, injected between steps (queued is then true).
// SendKind (steer.go) can queue it for after the turn instead.
func (r *Runner) Send(ctx context.Context, text string) (queued bool, err error) {
	return r.SendKind(ctx, text, message.KindSteer)
}

// Wait blocks until the loop is idle and returns how the last turn ended.
func (r *Runner) Wait(ctx context.Context) TurnResult { return r.turns.wait(ctx) }

// Done returns a channel closed when the current run ends.
func (r *Runner) Done() <-chan struct{} { return r.turns.done() }

// Cancel stops the running turn: streamed text so far is kept, running
// tools are killed, and their parts become interrupted errors. The queued
// messages are taken out of the queue and returned so that the caller can
// hand them back to the user; nothing typed is dropped.
func (r *Runner) Cancel(ctx context.Context) ([]message.QueuedMessage, error) {
	queued, err := r.store.TakeQueue(ctx, r.state.sess.ID)
	if err != nil {
		return nil, fmt.Errorf("cancel: take queue: %w", err)
	}
	r.turns.stop()
	if len(queued) > 0 {
		r.ev.queue(ctx)
	}
	return queued, nil
}

// Close cancels any running turn, waits for the loop and releases the lease.
func (r *Runner) Close() error {
	r.turns.stop()
	r.Wait(context.Background())
	r.titles.stop()
	r.stepper.stopWarming()
	r.toolEnv.Jobs.KillAll() // the session's end ends its background processes
	if r.opt.AskFrom == "" {
		r.opt.LSP.Close() // and its language servers; a subagent's are its parent's
	}
	return r.state.release() // none when the session's row was never written
}

// History returns a copy of the loaded history (for tests and inspection
// while idle): from the window Open read on (openwindow.go); WholeHistory
// reads what lies before it too.
func (r *Runner) History() []message.Entry { return r.state.historyCopy() }

// run is the loop goroutine: turns until nothing is queued.
func (r *Runner) run(ctx context.Context) TurnResult {
	var res TurnResult
	for {
		r.refreshPrompt(ctx)
		res = r.hooks.turnWithStop(ctx)
		if c := userCommitOf(ctx); c != nil {
			if err := c.wait(); err != nil { // the turn's message was never stored
				dropUserEntry(r.state, c.id)
				r.restoreCalculator()
				return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
			}
		}
		recordPlan(ctx, r.store, r.state, r.ev.emit, r.opt.Mode, res)
		r.cp.settle(ctx)
		sys, _ := r.fixedTokens() // what `agent context` counts the prompt with
		recordAfterTurn(ctx, r.store, r.state, systemCount{Model: r.mp.model, Tokens: sys})
		if res.FinishReason == FinishCancelled {
			// The partial text, the interrupted tool outputs and the
			// results kept were written outside the calculator's step
			// accounting: count again from the history as stored, as
			// `agent context` and a reopened session do.
			r.restoreCalculator()
		}
		if res.Err != nil || res.FinishReason == FinishCancelled || res.FinishReason == FinishDoomLoop || res.FinishReason == FinishStopped {
			return res
		}
		if r.opt.Config.Compaction.Prune {
			r.comp.prune(ctx)
		}
		injected, err := r.inbox.inject(ctx, true)
		if err != nil {
			return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
		}
		if !injected {
			return res
		}
		r.stepper.doom.reset()
	}
}

// turn runs steps until the model stops calling tools.
func (r *Runner) turn(ctx context.Context) TurnResult {
	steps := 0
	r.comp.newTurn()
	for {
		if steps > 0 {
			if _, err := r.inbox.inject(ctx, false); err != nil {
				return TurnResult{FinishReason: FinishError, Err: err, Steps: steps}
			}
		}
		if ctx.Err() != nil {
			return TurnResult{FinishReason: FinishCancelled, Steps: steps}
		}
		if err := beforeLimitedStep(ctx, r.opt.Limits, r.state.id(), r.ev.emit, r.hooks.d.addSynthetic); err != nil { // runlimits.go
			return TurnResult{FinishReason: FinishError, Err: err, Steps: steps}
		}
		conv := r.stepper.prepare() // the step's request, and its size for the decision
		snap := r.decisionReading(r.comp.withFixed(conv.calibrated, conv.plain))
		r.comp.announceNear(snap, steps == 0)
		if ok, reason := compact.Decide(r.mp.strategy, snap); ok && !r.comp.failedCovers(snap) {
			conv = nil // the history the step sends is the compacted one
			if err := awaitUserCommit(ctx); err != nil {
				return TurnResult{FinishReason: FinishError, Err: err, Steps: steps}
			}
			err := r.comp.compact(ctx, compactRequest{auto: true, reason: reason, midTask: r.midTask(steps)})
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return TurnResult{FinishReason: FinishCancelled, Steps: steps}
			case errors.Is(err, ErrBudget):
				r.ev.error(err.Error())
				return TurnResult{FinishReason: FinishBudget, Err: err, Steps: steps}
			default:
				// Not again until the context has grown: a compaction that
				// could not shrink it now would not shrink it next step.
				r.comp.failedAt = snap.Total
				if !errors.Is(err, ErrNothingToCompact) {
					r.ev.error(fmt.Sprintf("automatic compaction failed: %v", err))
				}
			}
		}
		out, err := r.stepper.step(ctx, steps, conv)
		if errors.Is(err, ErrBudget) {
			r.ev.error(err.Error())
			return TurnResult{FinishReason: FinishBudget, Err: err, Steps: steps}
		}
		steps++
		if err != nil {
			if ctx.Err() != nil {
				return TurnResult{FinishReason: FinishCancelled, Steps: steps}
			}
			r.ev.error(err.Error())
			return TurnResult{FinishReason: FinishError, Err: err, Steps: steps}
		}
		switch {
		case out.stop != "":
			return TurnResult{FinishReason: out.stop, Steps: steps, Err: out.stopErr}
		case r.opt.Limits.finalStep():
			return TurnResult{FinishReason: r.opt.Limits.ended, Steps: steps}
		case out.finish != "tool_calls":
			return TurnResult{FinishReason: out.finish, Steps: steps}
		case r.hooks.stepsBefore+steps >= r.opt.MaxSteps:
			return TurnResult{FinishReason: FinishMaxSteps, Steps: steps}
		}
	}
}

// decisionReading is the snapshot the compaction decision reads: the
// calculator's, with the compaction point lowered by what the provider's
// refusals taught, and the total raised to our own count of the request
// (requestEstimate, of the history conv was prepared from) when the
// provider's usage says less.
//
// own is that count: withFixed(conv.calibrated, conv.plain) of the step's
// conversation, or requestEstimate of the history.
func (r *Runner) decisionReading(own int64) tokens.Reading {
	s := r.Reading()
	s.Total = max(s.Total, own)
	return s
}

// midTask reports whether a compaction now falls in the middle of a task:
// between steps of a turn, the last message sent not one the user just
// wrote. Only then does the synthetic continue follow it.
func (r *Runner) midTask(steps int) bool {
	return steps > 0 && !lastIsUsers(r.state.history)
}

// lastIsUsers reports whether the newest sent message of history is one
// the user wrote (not a synthetic continue, a compaction or a summary).
func lastIsUsers(history []message.Entry) bool {
	v := Visible(history)
	for i := len(v) - 1; i >= 0; i-- {
		e := v[i]
		if e.Message.Role == message.RoleAssistant && len(ToModelMessages([]message.Entry{e}, ConvertOptions{})) == 0 {
			continue // not sent: superseded or empty
		}
		return e.Message.Role == message.RoleUser && !e.Message.Synthetic && !e.Message.Summary
	}
	return false
}

var getenv = os.Getenv
