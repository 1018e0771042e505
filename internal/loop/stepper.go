package loop

// The stepper: one step of a turn, from its request to its tools' results.
// It builds the step's request (and keeps what each history entry is sent
// as: reqcache.go, reqwarm.go), streams it with retries, records the
// step's usage and cost, holds the spending cap for it (budget.go), and
// runs the tools the model asked for (toolrun.go, doom.go, stepfit.go)
// from the tools offered now (tooltable.go, toolless.go).
//
// It owns none of the session's state: the history, the system prompt,
// the model, the calculator and the session's totals come in through
// stepDeps, as values and funcs, and so do the points where a step meets
// the rest of the loop (a checkpoint around its tools, the hooks and the
// permission check of a call, a compaction after a context-length error).
// The Runner keeps the order of a turn and calls step between its
// compaction decisions.
//
// Goroutines: the step and its tools run on the loop goroutine (read-only
// calls of a step run concurrently, serialised on the step's entry by
// runTools); the tool table, the request cache and the ceiling are read by
// other goroutines as well and guard themselves. mu guards toolless and
// budgetUnpriced, which SetBudget, SetModel and the Runner's pricing
// (fixedTokens) reach from outside the loop goroutine.

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// stepDeps is what a stepper is given: the session's values, and funcs
// over the state others own. Every func is called on the loop goroutine
// unless its comment says otherwise.
type stepDeps struct {
	opt       Options // the session's options, as Open completed them
	store     *storage.Store
	sessionID string
	toolEnv   *tools.Env

	// history and system are the session's as they are now (owned by
	// whoever holds busy: the loop goroutine); appendEntry and
	// replaceEntry change the history under the session's lock;
	// historyMark is its edit count and length (historyedits.go).
	history      func() []message.Entry
	historyMark  func() historyMark
	system       func() []string
	appendEntry  func(message.Entry)
	replaceEntry func(message.Entry)
	// modelPricing is the session's model now; calc its calculator;
	// fixedTokens the system prompt's and the offered tools' tokens.
	modelPricing func() modelPricing
	calc         func() *tokens.Calculator
	fixedTokens  func() (system, tools int64)
	pinsNow      func() (text string, tokens int64)
	emit         func(message.Event)
	// addSessionUsage adds a call's usage and cost to the session's
	// totals (any goroutine).
	addSessionUsage func(ctx context.Context, u message.Usage, costUSD float64)

	// decisionReading and withFixed price a prepared request as the
	// compaction decision does.
	decisionReading func(own int64) tokens.Reading
	withFixed       func(calibrated, plain int64) int64
	// compactAfterRefusal learns from a context-length error (err; the
	// calculator's total was estimate) and compacts the history; steps
	// is the turn's steps before this one.
	compactAfterRefusal func(ctx context.Context, steps int, err error, estimate int64) error
	// requestThrough tells the compaction breaker a request went through.
	requestThrough func()

	// checkpointTools runs run, the step's tools, between two
	// checkpoints when they may change files.
	checkpointTools func(ctx context.Context, e *message.Entry, calls []int, run func())
	// checkCall asks permission for a call; postToolHooks runs the
	// hooks after one; takeStopTurn reports (once) that the user stopped
	// the turn on a denial; recordProcess records a call's process group.
	// checkCall, postToolHooks and recordProcess run on the calls'
	// goroutines.
	checkCall     func(ctx context.Context, call tools.Call) (ok bool, denial string, err error)
	postToolHooks func(ctx context.Context, call tools.Call, res tools.Result) tools.Result
	takeStopTurn  func() bool
	recordProcess func(ctx context.Context, e *message.Entry, ix int, g tools.ProcessGroup)
	// firstRequest and firstByte mark the start-up trace's phases.
	firstRequest, firstByte func()

	// For warming the request cache while the user types (reqwarm.go,
	// any goroutine): withSession runs fn with the session's lock held
	// (busy: a turn runs; history and system the session's), modelSteady
	// runs fn while the model cannot change (taken before the session's
	// lock), busy reports whether a turn runs.
	withSession func(fn func(busy bool, history []message.Entry, system []string))
	modelSteady func(fn func())
	busy        func() bool
}

// stepper runs the steps of a session (see the file comment).
type stepper struct {
	stepDeps
	tt toolTable // the tools of the current step
	// bounds keeps the last request's prefix, to record the cache
	// boundaries (cacheboundary.go).
	bounds boundaryWatch
	// reqc keeps what each history entry is sent as (reqcache.go); warm
	// fills it while the user types a resumed session's first message
	// (reqwarm.go).
	reqc requestCache
	warm requestWarmer
	doom doomGuard
	// allowed are the doom loops the user said to always allow (loop
	// goroutine).
	allowed map[string]bool

	mu sync.Mutex
	// toolless holds the models whose server refused tools this session
	// (toolless.go); guarded by mu.
	toolless map[string]bool
	// visionless holds the models whose server refused images this
	// session (toolimages.go); guarded by mu.
	visionless map[string]bool
	// budgetUnpriced is set once the user was told the cap cannot be
	// enforced for an unpriced model; guarded by mu.
	budgetUnpriced bool

	// usageNote logs the session's first suspect usage report
	// (usagesanity.go).
	usageNote usageNote
	// ceiling is the largest request (by requestEstimate) the provider
	// takes, learnt from its context-length errors; 0 when none was
	// refused. It lowers the compaction point for the rest of the session.
	ceiling atomic.Int64
	rnd     *rand.Rand // the retries' jitter
}

// newStepper makes the stepper of a session; d.opt.Tools are its tools
// before any extra one joins.
func newStepper(d stepDeps) *stepper {
	sp := &stepper{stepDeps: d, allowed: map[string]bool{}}
	sp.tt.base = d.opt.Tools
	sp.rnd = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5eed))
	return sp
}

// emitError announces an error of the session.
func (sp *stepper) emitError(msg string) {
	sp.emit(message.Event{Type: message.EventError, SessionID: sp.sessionID, Err: msg})
}

// setBudget changes the spending cap; an unpriced model is told about
// again under the new one.
func (sp *stepper) setBudget(usd float64) {
	sp.opt.Ledger.SetCap(usd)
	sp.mu.Lock()
	sp.budgetUnpriced = false
	sp.mu.Unlock()
}
