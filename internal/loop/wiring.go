package loop

// wiring.go: what Open gives the Runner's collaborators. Each gets its
// inputs as a deps struct of values and funcs over the session state and
// the other collaborators (never a *Runner); a func reaches a
// collaborator made after it when it is called, not when it is made.
// stepwire.go wires the stepper, runnerCompactor (compactor.go) the
// compactor, runnerCheckpointDeps (checkpoint.go) the checkpointer.

import (
	"context"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/memory"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/recall"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/todo"
	"github.com/ctxloop/agent/internal/tools"
)

// wire makes r's hook points, stepper, inbox and titler, in that order,
// for a session in dir.
func wire(r *Runner, dir string) {
	opt, st := r.opt, r.store
	addSynthetic := func(ctx context.Context, text string) error { return committed(r.addUserMessage(ctx, text, true)) }
	remind := &todoReminder{d: todoReminderDeps{on: opt.TodoReminder, turn: r.turn, history: r.state.historyCopy, addSynthetic: addSynthetic, // todoreminder.go
		stepsBefore: func() int { return r.hooks.stepsBefore }, setBefore: func(n int) { r.hooks.stepsBefore = n },
		maxSteps: opt.MaxSteps, emit: r.ev.emit, session: r.state.id}}
	r.hooks = newHookPoints(hookDeps{hooks: opt.Hooks, perms: opt.Perms, dir: dir, mode: opt.Mode, session: r.state.id, emit: r.ev.emit, note: r.ev.note,
		addSynthetic: addSynthetic, history: r.state.historyCopy, maxSteps: opt.MaxSteps})
	// A turn, then the todo reminder, the check before "done" and the
	// answer by policy of a headless run, each at most once.
	vd := verifyDeps{cfg: opt.Config.Verify, dir: dir, session: r.state.id, emit: r.ev.emit, history: r.state.historyCopy, addSynthetic: addSynthetic,
		turn: remind.turn, maxSteps: opt.MaxSteps, stepsBefore: &r.hooks.stepsBefore}
	ad := vd
	ad.turn = func(ctx context.Context) TurnResult { return verifiedTurn(ctx, vd) }                            // verifystep.go
	r.hooks.d.turn = func(ctx context.Context) TurnResult { return answeredTurn(ctx, ad, opt.NonInteractive) } // noninteractive.go
	r.stepper = newStepper(stepDepsOf(r))
	r.inbox = &inbox{inboxDeps{store: st, session: r.state.id, model: r.Model, emit: r.ev.emit, emitQueue: r.ev.queue, hooks: r.hooks, added: r.userMessageAdded, env: r.toolEnv, perms: opt.Perms, registry: r.stepper.registry}}
	r.titles = &titler{d: titleDeps{cfg: opt.Config, reserve: r.stepper.reserve, estimate: messagesEstimate, complete: func(ctx context.Context, req provider.Request) (string, *message.Usage, error) {
		return completeOnce(ctx, opt.Provider, req)
	},
		cost: r.stepper.costOf, addUsage: usageAdder(r.state, st, r.ev), title: func() string { return r.state.session().Title },
		setTitle: func(ctx context.Context, title string) { setTitle(ctx, r.state, st, r.ev, title) }}}
}

// turnDepsOf is what the turn control drives: r's run, and the inbox
// (made after the turn control) for the queue.
func turnDepsOf(r *Runner) turnDeps {
	return turnDeps{
		run:     r.run,
		waiting: func(ctx context.Context) bool { return r.inbox.waiting(ctx) },
		inject:  func(ctx context.Context) (bool, error) { return r.inbox.inject(ctx, true) },
		status: func(busy bool) {
			r.ev.emit(message.Event{Type: message.EventStatus, SessionID: r.state.id(), Busy: busy})
		},
	}
}

// usageAdder adds one call's usage and cost to the session's totals
// (stored, then in memory) and announces the session, so that every
// figure shown live is the stored one: the steps, the summary requests and
// the small model's title requests alike. Calls are serialised
// (sessWrite), so the last announcement carries the newest totals.
func usageAdder(s *sessionState, st *storage.Store, ev emitter) func(ctx context.Context, u message.Usage, costUSD float64) {
	return func(ctx context.Context, u message.Usage, costUSD float64) {
		if row, ok := s.addUsage(ctx, st, u, costUSD); ok {
			ev.emit(message.Event{Type: message.EventSessionUpdated, SessionID: row.ID, Session: &row})
		}
	}
}

// sessionTools is the registry a session offers: the given tools, recall
// over the session's own history, the todo list's tools (the list as
// stored: internal/todo) and the memory tools (internal/memory) — not a
// subagent's, whose task is one step of its parent's — and the session's
// own tools.
func sessionTools(opt Options, st *storage.Store, sessionID, dir string) *tools.Registry {
	own := []tools.Tool{recall.New(st, sessionID)}
	if opt.AskFrom == "" {
		own = append(own, todo.Tools(func() todo.List {
			h, _ := openHistory(context.Background(), st, sessionID) // from the latest list on (openwindow.go); an unreadable history reads as no list
			return todo.Latest(h)
		})...)
		var mc config.Memory // a stored session's reading: the default tools
		if opt.Config != nil {
			mc = opt.Config.Memory
		}
		own = append(own, memory.Tools(context.Background(), st, sessionID, dir, mc)...)
	}
	if opt.SessionTools != nil {
		own = append(own, opt.SessionTools(sessionID)...)
	}
	if opt.LSP != nil {
		own = append(own, opt.LSP.Tool()) // diagnostics{path?}
	}
	if t := opt.Skills.tool(); t != nil { // skills.go
		own = append(own, t)
	}
	return opt.Tools.With(own...)
}

// editObserver is the language servers as the tools' edit observer; nil
// (not a nil *lsp.Servers in an interface) when there are none.
func editObserver(s *lsp.Servers) tools.EditObserver {
	if s == nil {
		return nil
	}
	return s
}

// secretValues are the values tools must neither pass to a command nor
// store: the API key.
func secretValues(c *config.Config) []string {
	if c.APIKey == "" {
		return nil
	}
	return []string{c.APIKey}
}

// jobsOf is the session's table of background processes: the caller's,
// or one of its own.
func jobsOf(opt Options) *jobs.Table {
	if opt.Jobs != nil {
		return opt.Jobs
	}
	return jobs.New(opt.Config.Tools.BashMaxBackground)
}

func limitsOf(c *config.Config) tools.Limits {
	return tools.Limits{
		BashMaxOutputChars: c.Tools.BashMaxOutputChars,
		BashTimeout:        c.BashTimeout(),
		ReadMaxLines:       c.Tools.ReadMaxLines,
		ReadMaxLineLength:  c.Tools.ReadMaxLineLength,

		SavedOutputMaxBytes:  c.Tools.SavedOutputMaxBytes,
		OutputsMaxTotalBytes: c.Tools.OutputsMaxTotalBytes,
	}
}
