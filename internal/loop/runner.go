package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/recall"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// DefaultMaxSteps bounds a turn when no limit is given.
const DefaultMaxSteps = 200

// Finish reasons of a turn beyond the model's own.
const (
	FinishCancelled = "cancelled"
	FinishMaxSteps  = "max_steps"
	FinishDoomLoop  = "doom_loop"
	FinishError     = "error"
	FinishEmpty     = "empty"
	// FinishStopped: the user denied a call and stopped the turn.
	FinishStopped = "stopped"
)

// DoomReply is the user's answer to a doom-loop question.
type DoomReply int

// Answers to a doom-loop question.
const (
	DoomStop DoomReply = iota
	DoomContinue
	DoomAlwaysAllow
)

// DoomAsker asks the user whether to run a tool call repeated
// DoomThreshold times in a row. The TUI implements it; headless runs have
// none, and a doom loop stops the turn.
type DoomAsker interface {
	AskDoomLoop(ctx context.Context, tool, input string) (DoomReply, error)
}

// Options configure a Runner.
type Options struct {
	// TrustUsage skips the usage sanity check (tokens.SuspectReport,
	// usagesanity.go): every reported usage anchors the calculator. For
	// tests whose scripted usage stands for a context larger than the text
	// they send.
	TrustUsage bool

	Store    *storage.Store
	Provider provider.Provider
	Tools    *tools.Registry
	// Extra supplies tools that come and go during the session (MCP
	// servers); nil means none. See tooltable.go.
	Extra tools.Source
	// SessionTools, if set, makes the tools that need the session's id
	// (the task tool); they join Tools for the session's lifetime.
	SessionTools func(sessionID string) []tools.Tool
	Perms        *tools.Permissions
	Config       *config.Config
	// Dir is the session's directory for a new session.
	Dir string
	// OutputDir is where tools save full outputs.
	OutputDir string
	// Doom asks about doom loops; nil stops the turn instead.
	Doom DoomAsker
	// Observer, if set, is called synchronously and in order with every
	// event of the session, text deltas included (the store's broker may
	// coalesce deltas; the observer never misses one).
	Observer func(message.Event)
	// MaxSteps bounds the steps of a turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxCostUSD is the session's spending cap (--max-cost, config
	// budget); 0 means none. See budget.go.
	MaxCostUSD float64
	// Ledger, if set, is the spending ledger this session shares (a
	// subagent's is its parent's), and MaxCostUSD is not read; nil makes
	// one with the cap MaxCostUSD and the session's cost so far.
	Ledger *budget.Ledger
	// Retry is the retry policy; the zero value means DefaultRetryPolicy.
	Retry RetryPolicy
	// Estimator counts tokens; nil picks one for the model.
	Estimator tokens.Estimator
	// Sleep waits between retries; nil waits on a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Environment, if set, is the system prompt's environment being
	// gathered in the background for Dir (GatherEnvironment): a session in
	// that directory uses it, and its first turn waits for it; until then
	// the calculator counts the stable prompt only. nil: Open gathers it.
	Environment *PendingEnvironment
	// AskFrom names who makes this session's tool calls when it is not the
	// user's own session (a subagent's): permission requests say it.
	AskFrom string
	// RowOnFirstMessage defers a new session's row and lease to its first
	// message, written with them in one transaction (a headless run's
	// start: one write before its first request). Until then the session
	// lives in memory only (Stored reports false); a run that ends before
	// sending anything leaves no empty session behind.
	RowOnFirstMessage bool
	// StartupTrace, if set, is told when each start-up phase of the
	// session ends (startuptrace.go); nil traces nothing.
	StartupTrace func(phase string, began time.Time)
	// SystemPrompt makes the system messages from the environment; nil
	// means SystemPrompt. A subagent's session has its own (internal/task).
	SystemPrompt func(Environment) []string
	// Hooks runs the user's hooks (hooks.go); nil means none.
	Hooks *hooks.Runner
	// CodeFiles are files that run as code besides those Hooks run
	// (tools.Env.CodeFiles): a subagent gets its session's, whose hooks
	// run what the subagent writes.
	CodeFiles []string
	// Children records the process group of a !command while it runs
	// (RunShell), for the next start to stop what a killed agent left;
	// nil records nothing. (A tool call's group is recorded with its part.)
	Children *childproc.Registry
	// Effort is the reasoning effort the user chose (effort.go); nil: the config's.
	Effort *Effort
}

// TurnResult is how a turn ended.
type TurnResult struct {
	FinishReason string
	Steps        int
	Err          error
}

// Runner drives one session.
type Runner struct {
	opt   Options
	store *storage.Store
	lease *storage.Lease // nil while unsaved
	// unsaved: the session's row and lease wait for its first message
	// (Options.RowOnFirstMessage); guarded by sessWrite.
	unsaved bool
	model   string
	info    config.ModelInfo
	est     tokens.Estimator
	// calcp holds the token calculator; SetModel replaces it while the
	// TUI may be reading it.
	calcp    atomic.Pointer[tokens.Calculator]
	strategy compact.Strategy
	toolEnv  *tools.Env
	// stepper runs the steps: their requests, tools and usage (stepper.go).
	stepper *stepper

	mu      sync.Mutex
	sess    message.Session
	busy    bool
	cancel  context.CancelFunc
	idle    chan struct{} // closed when the current run ends
	last    TurnResult
	history []message.Entry // owned by whoever holds busy
	system  []string        // owned by whoever holds busy
	// promptAt is when the system prompt's environment was gathered;
	// promptFromOpen, that Open gathered it and no turn has run since.
	promptAt       time.Time
	promptFromOpen bool
	// pendingEnv is Options.Environment until the first turn takes it.
	pendingEnv *PendingEnvironment
	titles     *titler // the background small_model title request
	cp         *checkpointer
	// comp manages the context: deciding compaction, summarising,
	// pruning, undo and summary edit (compactor.go).
	comp    *compactor
	notes   []string
	skipped skippedNotes  // the instruction files named in notes (instructions.go)
	pins    []message.Pin // guarded by mu
	trace   startupTrace
	hooks   *hookPoints // the user's hooks (hooks.go)
	inbox   *inbox      // @mentions and the queue's delivery (steer.go)

	// sessWrite serialises copying r.sess and writing it, so that the
	// stored row never goes back to an older title or model.
	sessWrite sync.Mutex
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
		if lease, err = st.AcquireLease(ctx, sess.ID); err != nil {
			return nil, fmt.Errorf("open session %s: %w", sess.ID, err)
		}
	}
	opt.Tools = sessionTools(opt, st, sess.ID)
	if opt.Ledger == nil {
		opt.Ledger = budget.New(opt.MaxCostUSD, sess.CostUSD)
	}
	r := &Runner{opt: opt, store: st, lease: lease, unsaved: unsaved, sess: *sess, trace: startupTrace{report: opt.StartupTrace}}
	r.idle = make(chan struct{})
	close(r.idle)
	r.comp = runnerCompactor(r)
	// A session made just now has nothing to repair, load or restore:
	// the first message's request does not wait for those reads.
	if sessionID != "" {
		for _, err := range stopOrphanedTools(ctx, st, sess.ID) {
			_ = st.LogEvent(ctx, sess.ID, "recovery_error", map[string]string{"error": err.Error()})
		}
		if _, err := st.RepairSession(ctx, sess.ID); err != nil {
			lease.Release()
			return nil, fmt.Errorf("repair session %s: %w", sess.ID, err)
		}
		var err error
		if r.history, err = st.LoadHistory(ctx, sess.ID); err != nil {
			lease.Release()
			return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
		}
		if r.pins, err = st.ListPins(ctx, sess.ID); err != nil {
			lease.Release()
			return nil, fmt.Errorf("load session %s: %w", sess.ID, err)
		}
	}
	dir := sess.Dir
	if dir == "" {
		dir = opt.Dir
	}
	r.toolEnv = &tools.Env{Dir: dir, OutputDir: opt.OutputDir, Limits: limitsOf(opt.Config), Files: tools.NewFileTracker(), Secrets: secretValues(opt.Config), AskFrom: opt.AskFrom,
		CodeFiles: slices.Concat(opt.Hooks.RepositoryFiles(dir), opt.CodeFiles)} // what a hook runs is code: writing it asks
	r.hooks = newHookPoints(hookDeps{hooks: opt.Hooks, perms: opt.Perms, dir: dir, session: func() string { return r.sess.ID }, emit: r.emit, note: r.note,
		addSynthetic: func(ctx context.Context, text string) error { return r.addUserMessage(ctx, text, true) }, history: r.History, turn: r.turn, maxSteps: opt.MaxSteps})
	r.stepper = newStepper(stepDepsOf(r))
	r.inbox = &inbox{inboxDeps{store: st, session: r.hooks.d.session, model: r.Model, emit: r.emit, emitQueue: r.emitQueue, hooks: r.hooks, added: r.userMessageAdded, env: r.toolEnv, perms: opt.Perms, registry: r.stepper.registry}}
	r.titles = &titler{d: titleDeps{cfg: opt.Config, reserve: r.stepper.reserve, estimate: messagesEstimate, complete: func(ctx context.Context, req provider.Request) (string, *message.Usage, error) {
		return completeOnce(ctx, r.opt.Provider, req)
	},
		cost: r.stepper.costOf, addUsage: r.addSessionUsage, title: func() string { return r.Session().Title }, setTitle: r.setTitle}}
	if c := opt.Config; sessionID != "" && c.ModelExplicit && c.Model != sess.Model {
		// --model or AGENT_MODEL switches a resumed session's model; a
		// model from a config file only applies to new sessions.
		r.sess.Model = c.Model
		if err := st.UpdateSession(ctx, &r.sess); err != nil {
			lease.Release()
			return nil, fmt.Errorf("open session %s: %w", sess.ID, err)
		}
	}
	r.setModel(r.sess.Model)
	r.stepper.refreshTools()
	r.cp = newCheckpointer(ctx, runnerCheckpointDeps(r, dir))
	r.trace.phase("session", time.Time{})
	r.openPrompt(ctx, dir)
	r.system = r.hooks.sessionStart(ctx, sessionID != "", r.model, r.system)
	r.restoreCalculator()
	if sessionID != "" {
		r.comp.restoreCeiling(ctx, &r.stepper.ceiling)
	}
	return r, nil
}

// sessionTools is the registry a session offers: the given tools, recall
// over the session's own history and the session's own tools.
func sessionTools(opt Options, st *storage.Store, sessionID string) *tools.Registry {
	own := []tools.Tool{recall.New(st, sessionID)}
	if opt.SessionTools != nil {
		own = append(own, opt.SessionTools(sessionID)...)
	}
	return opt.Tools.With(own...)
}

// setModel picks the model's limits, estimator and compaction strategy
// (newModelPricing).
func (r *Runner) setModel(model string) {
	m := newModelPricing(r.opt.Config, model, r.opt.Estimator)
	r.mu.Lock()
	r.model = m.model
	r.mu.Unlock()
	r.info, r.est, r.strategy = m.info, m.est, m.strategy
}

// modelPricing is what the session's model prices with.
func (r *Runner) modelPricing() modelPricing {
	return modelPricing{model: r.model, info: r.info, est: r.est, strategy: r.strategy}
}

// pricing is the session's pricing now (pricing.go).
func (r *Runner) pricing() pricing {
	return pricing{modelPricing: r.modelPricing(), cfg: r.opt.Config, ceiling: r.stepper.ceiling.Load(), calc: r.calc()}
}

func (r *Runner) calcOptions() tokens.Options { return r.modelPricing().calcOptions() }

func (r *Runner) restoreCalculator() {
	sys, tl := r.fixedTokens()
	calc := r.modelPricing().restoreCalculator(sys, tl, r.history, r.Pins())
	r.calcp.Store(calc)
	calc.SetLogger(func(estimate, actual int64) {
		_ = r.store.LogEvent(context.Background(), r.sess.ID, "estimate", map[string]int64{"estimate": estimate, "actual": actual})
	})
}

// fixedTokens estimates the system prompt and the tool schemas.
func (r *Runner) fixedTokens() (system, tools int64) {
	return fixedTokensOf(r.system, r.stepper.offered(), r.stepper.toolsOff(r.model), r.est)
}

// secretValues are the values tools must neither pass to a command nor
// store: the API key.
func secretValues(c *config.Config) []string {
	if c.APIKey == "" {
		return nil
	}
	return []string{c.APIKey}
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

// calc returns the session's token calculator.
func (r *Runner) calc() *tokens.Calculator { return r.calcp.Load() }

// Session returns the session as it is now.
func (r *Runner) Session() message.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sess
}

// Snapshot returns the token calculator's snapshot: the one figure the
// status bar, /context, `agent context` and the compaction trigger share.
// Its compaction point is lowered when the provider refused a request
// (compact.LowerPoint).
func (r *Runner) Snapshot() tokens.Snapshot {
	// Atomics only: the TUI reads it while the loop runs.
	return pricing{ceiling: r.stepper.ceiling.Load(), calc: r.calc()}.snapshot()
}

// CompactAt is the total at which automatic compaction starts (0: never
// automatically).
func (r *Runner) CompactAt() int64 { return r.Snapshot().CompactAt }

// Busy reports whether the loop is running.
func (r *Runner) Busy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.busy
}

// Send gives the session a user message. When the loop is idle the message
// is persisted and a turn starts; when it is busy the message is queued to
// steer the running turn, injected between steps (queued is then true).
// SendKind (steer.go) can queue it for after the turn instead.
func (r *Runner) Send(ctx context.Context, text string) (queued bool, err error) {
	return r.SendKind(ctx, text, message.KindSteer)
}

// start runs the loop goroutine; the caller has set busy.
func (r *Runner) start() {
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	r.cancel = cancel
	r.idle = make(chan struct{})
	r.mu.Unlock()
	r.emit(message.Event{Type: message.EventStatus, SessionID: r.sess.ID, Busy: true})
	go func() {
		res := r.run(ctx)
		for !r.settle(ctx, res) { // a message came as the run ended (steer.go)
			res = r.run(ctx)
		}
		cancel()
	}()
}

// setIdle ends a busy period with res. A message sent meanwhile was
// queued; when the period was not a turn (a compaction, an undo of one, a
// summary edit) no turn would pick it up, so one starts now with it.
func (r *Runner) setIdle(res TurnResult) {
	r.mu.Lock()
	if r.inbox.waiting(context.Background()) {
		idle := r.idle
		r.last = res
		r.mu.Unlock()
		closeIdle(idle) // this period is over: Wait returns res
		r.resumeQueued()
		return
	}
	r.idleLocked(res)
}

func closeIdle(idle chan struct{}) {
	select {
	case <-idle:
	default:
		close(idle)
	}
}

// idleLocked is setIdle with r.mu held; it unlocks it.
func (r *Runner) idleLocked(res TurnResult) {
	r.busy = false
	r.last = res
	r.cancel = nil
	idle := r.idle
	r.mu.Unlock()
	closeIdle(idle)
	r.emit(message.Event{Type: message.EventStatus, SessionID: r.sess.ID, Busy: false})
}

// Wait blocks until the loop is idle and returns how the last turn ended.
func (r *Runner) Wait(ctx context.Context) TurnResult {
	r.mu.Lock()
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
		return TurnResult{FinishReason: FinishCancelled, Err: ctx.Err()}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Done returns a channel closed when the current run ends.
func (r *Runner) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.idle
}

// Cancel stops the running turn: streamed text so far is kept, running
// tools are killed, and their parts become interrupted errors. The queued
// messages are taken out of the queue and returned so that the caller can
// hand them back to the user; nothing typed is dropped.
func (r *Runner) Cancel(ctx context.Context) ([]message.QueuedMessage, error) {
	queued, err := r.store.TakeQueue(ctx, r.sess.ID)
	if err != nil {
		return nil, fmt.Errorf("cancel: take queue: %w", err)
	}
	r.mu.Lock()
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if len(queued) > 0 {
		r.emitQueue(ctx)
	}
	return queued, nil
}

// Close cancels any running turn, waits for the loop and releases the lease.
func (r *Runner) Close() error {
	r.mu.Lock()
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	r.Wait(context.Background())
	r.titles.stop()
	r.stepper.stopWarming()
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	if r.lease == nil { // the session's row was never written
		return nil
	}
	return r.lease.Release()
}

// History returns a copy of the loaded history (for tests and inspection
// while idle).
func (r *Runner) History() []message.Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message.Entry(nil), r.history...)
}

// Queue returns the queued messages.
func (r *Runner) Queue(ctx context.Context) ([]message.QueuedMessage, error) {
	return r.store.ListQueue(ctx, r.sess.ID)
}

// UpdateQueued edits a queued message.
func (r *Runner) UpdateQueued(ctx context.Context, id, text string) error {
	if err := r.store.UpdateQueued(ctx, id, text); err != nil {
		return err
	}
	r.emitQueue(ctx)
	return nil
}

// RemoveQueued deletes a queued message.
func (r *Runner) RemoveQueued(ctx context.Context, id string) error {
	if err := r.store.RemoveQueued(ctx, id); err != nil {
		return err
	}
	r.emitQueue(ctx)
	return nil
}

// MoveQueued moves a queued message to another position.
func (r *Runner) MoveQueued(ctx context.Context, id string, position int) error {
	if err := r.store.MoveQueued(ctx, id, position); err != nil {
		return err
	}
	r.emitQueue(ctx)
	return nil
}

// PullBack removes the newest queued message and returns it (its text and
// images), for the editor (Up on an empty editor). ok is false when the
// queue is empty.
func (r *Runner) PullBack(ctx context.Context) (last message.QueuedMessage, ok bool, err error) {
	q, err := r.store.ListQueue(ctx, r.sess.ID)
	if err != nil || len(q) == 0 {
		return last, false, err
	}
	last = q[len(q)-1]
	if err := r.store.RemoveQueued(ctx, last.ID); err != nil {
		return message.QueuedMessage{}, false, err
	}
	r.emitQueue(ctx)
	return last, true, nil
}

func (r *Runner) emitQueue(ctx context.Context) {
	q, err := r.store.ListQueue(ctx, r.sess.ID)
	if err != nil {
		return
	}
	r.emit(message.Event{Type: message.EventQueueChanged, SessionID: r.sess.ID, Queue: q})
}

// emit sends a loop event to the observer. Row changes reach the store's
// broker from the store itself; the loop's own events are published here.
func (r *Runner) emit(ev message.Event) {
	switch ev.Type {
	case message.EventStatus, message.EventRetrying, message.EventPruned, message.EventCompacted, message.EventError, message.EventCompactionNear, message.EventNote, message.EventCheckpointProgress:
		r.store.Publish(ev)
	}
	if r.opt.Observer != nil {
		r.opt.Observer(ev)
	}
}

// addUserMessage persists a user message and appends it to the history.
// A non-synthetic message starts a new turn; the first one of a session
// also gives it its title, written with the message in one transaction.
// Images, if any, are attached after the text and the @mentions.
func (r *Runner) addUserMessage(ctx context.Context, text string, synthetic bool, images ...*message.FileState) error {
	extra := ""
	if !synthetic {
		var err error
		if extra, err = r.hooks.prompt(ctx, text); err != nil {
			return err
		}
	}
	m := message.Message{SessionID: r.sess.ID, Role: message.RoleUser, Synthetic: synthetic, Model: r.model}
	m.FinishedAt = time.Now()
	parts := []*message.Part{{Type: message.PartText, Text: text}}
	if !synthetic {
		parts = r.inbox.parts(ctx, text) // @mentions resolved now (mention.go)
	}
	parts = append(parts, imageParts(images)...)
	first := firstText(parts)
	sess, title, err := r.storeUserMessage(ctx, &m, parts, first, synthetic)
	if err != nil {
		return fmt.Errorf("save user message: %w", err)
	}
	stored := make([]message.Part, len(parts))
	for i, p := range parts {
		stored[i] = *p
	}
	r.userMessageAdded(ctx, m, stored, synthetic)
	if title != "" {
		r.emit(message.Event{Type: message.EventSessionUpdated, SessionID: sess.ID, Session: sess})
		r.titles.request(first, title)
	}
	return r.hooks.addPromptContext(ctx, extra)
}

// userMessageAdded does what follows a stored user message: events, the
// history, the calculator, and for one the user wrote the doom guard and
// the title.
func (r *Runner) userMessageAdded(ctx context.Context, m message.Message, parts []message.Part, synthetic bool) {
	r.emit(message.Event{Type: message.EventMessageUpdated, SessionID: r.sess.ID, Message: &m})
	text := ""
	for i := range parts {
		r.emit(message.Event{Type: message.EventPartUpdated, SessionID: r.sess.ID, Part: &parts[i]})
		if parts[i].Type == message.PartText && text == "" {
			text = parts[i].Text
		}
	}
	r.mu.Lock()
	r.history = append(r.history, message.Entry{Message: m, Parts: parts})
	r.mu.Unlock()
	r.calc().AddText(tokens.UserContent(parts))
	r.calc().AddTokens(tokens.TokensPerMessage + tokens.ImagesCost(parts))
	if !synthetic {
		r.stepper.doom.reset()
		r.mu.Lock()
		untitled := r.sess.Title == ""
		r.mu.Unlock()
		if untitled {
			title := TitleFrom(text)
			r.setTitle(ctx, title)
			r.titles.request(text, title)
		}
	}
}

func (r *Runner) setTitle(ctx context.Context, title string) {
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	r.mu.Lock()
	r.sess.Title = title
	s := r.sess
	r.mu.Unlock()
	if err := r.store.UpdateSession(ctx, &s); err == nil {
		r.emit(message.Event{Type: message.EventSessionUpdated, SessionID: s.ID, Session: &s})
	}
}

// TitleFrom makes a session title from the first user message: its first
// non-empty line, trimmed to at most 60 characters at a word boundary.
func TitleFrom(text string) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	const maxRunes = 60
	if utf8.RuneCountInString(line) <= maxRunes {
		return line
	}
	runes := []rune(line)[:maxRunes]
	cut := string(runes)
	if i := strings.LastIndex(cut, " "); i > maxRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// run is the loop goroutine: turns until nothing is queued.
func (r *Runner) run(ctx context.Context) TurnResult {
	var res TurnResult
	for {
		r.refreshPrompt(ctx)
		res = r.hooks.turnWithStop(ctx)
		r.cp.settle(ctx)
		if res.FinishReason == FinishCancelled {
			r.recountAfterInterrupt()
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
		conv := r.stepper.prepare() // the step's request, and its size for the decision
		snap := r.decisionSnapshot(r.comp.withFixed(conv.calibrated, conv.plain))
		r.comp.announceNear(snap, steps == 0)
		if ok, reason := compact.Decide(r.strategy, snap); ok && !r.comp.failedCovers(snap) {
			conv = nil // the history the step sends is the compacted one
			err := r.comp.compact(ctx, compactRequest{auto: true, reason: reason, midTask: r.midTask(steps)})
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return TurnResult{FinishReason: FinishCancelled, Steps: steps}
			case errors.Is(err, ErrBudget):
				r.emitError(err.Error())
				return TurnResult{FinishReason: FinishBudget, Err: err, Steps: steps}
			default:
				// Not again until the context has grown: a compaction that
				// could not shrink it now would not shrink it next step.
				r.comp.failedAt = snap.Total
				if !errors.Is(err, ErrNothingToCompact) {
					r.emitError(fmt.Sprintf("automatic compaction failed: %v", err))
				}
			}
		}
		out, err := r.stepper.step(ctx, steps, conv)
		if errors.Is(err, ErrBudget) {
			r.emitError(err.Error())
			return TurnResult{FinishReason: FinishBudget, Err: err, Steps: steps}
		}
		steps++
		if err != nil {
			if ctx.Err() != nil {
				return TurnResult{FinishReason: FinishCancelled, Steps: steps}
			}
			r.emitError(err.Error())
			return TurnResult{FinishReason: FinishError, Err: err, Steps: steps}
		}
		switch {
		case out.stop != "":
			return TurnResult{FinishReason: out.stop, Steps: steps, Err: out.stopErr}
		case out.finish != "tool_calls":
			return TurnResult{FinishReason: out.finish, Steps: steps}
		case r.hooks.stepsBefore+steps >= r.opt.MaxSteps:
			return TurnResult{FinishReason: FinishMaxSteps, Steps: steps}
		}
	}
}

// decisionSnapshot is the snapshot the compaction decision reads: the
// calculator's, with the compaction point lowered by what the provider's
// refusals taught, and the total raised to our own count of the request
// (requestEstimate, of the history conv was prepared from) when the
// provider's usage says less.
//
// own is that count: withFixed(conv.calibrated, conv.plain) of the step's
// conversation, or requestEstimate of the history.
func (r *Runner) decisionSnapshot(own int64) tokens.Snapshot {
	s := r.Snapshot()
	s.Total = max(s.Total, own)
	return s
}

// midTask reports whether a compaction now falls in the middle of a task:
// between steps of a turn, the last message sent not one the user just
// wrote. Only then does the synthetic continue follow it.
func (r *Runner) midTask(steps int) bool {
	return steps > 0 && !lastIsUsers(r.history)
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

func (r *Runner) emitError(msg string) {
	r.emit(message.Event{Type: message.EventError, SessionID: r.sess.ID, Err: msg})
}

var getenv = os.Getenv

// SetModel switches the session to another model (the /model command). It
// fails while a turn runs. The calculator is rebuilt for the new model's
// window; the last call's usage still anchors it.
func (r *Runner) SetModel(ctx context.Context, model string) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return errors.New("set model: empty name")
	}
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	r.mu.Lock()
	if r.busy {
		r.mu.Unlock()
		return errors.New("set model: the agent is busy; wait for the turn to end or cancel it")
	}
	r.sess.Model = model
	s := r.sess
	r.mu.Unlock()
	if err := r.store.UpdateSession(ctx, &s); err != nil {
		return fmt.Errorf("set model: %w", err)
	}
	r.setModel(model)
	r.stepper.refreshTools() // the tools offered follow the new window
	r.restoreCalculator()
	r.comp.restoreCeiling(ctx, &r.stepper.ceiling)
	r.emit(message.Event{Type: message.EventSessionUpdated, SessionID: s.ID, Session: &s})
	return nil
}

// Model returns the model the session uses now.
func (r *Runner) Model() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model
}

// ModelKnown reports whether the model's limits come from the catalog or
// the config rather than conservative defaults.
func (r *Runner) ModelKnown() bool {
	_, known := r.opt.Config.ModelInfo(r.Model())
	return known
}
