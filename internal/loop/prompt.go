package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/earlygit"
	"github.com/ctxloop/agent/internal/gitcmd"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/todo"
)

// stablePrompt is the first, unchanging part of the system prompt. Keeping
// it byte-identical across sessions and turns lets providers' prompt caches
// hit; everything that varies lives in the dynamic part after it.
const stablePrompt = `You are agent, a coding assistant working in the user's repository through a terminal. You read, search, edit and run code with the tools you are given, and you answer the user directly.

How to work:
- Understand before you change: read the relevant files, search with grep and glob, and look at how the code is tested.
- Make the smallest change that fully solves the problem, in the style of the surrounding code. Edit existing files with edit; create files with write only when needed.
- After a change, verify it: build, run the tests, or run the program. Report what you ran and what happened.
- Tool outputs may be truncated; when one says where the full output is saved, read or grep that file for more instead of re-running the command.
- Older tool outputs may be replaced by "[Old tool result content cleared]", and older messages by a summary, to save context. Nothing is lost: the recall tool searches this session's whole history (cleared outputs, summarised messages, the full outputs of truncated results) and returns the original text by its ref. Use recall before re-reading a file or re-running a command for something you saw earlier.
- Never run destructive commands (deleting data, force-pushing, rewriting history) unless the user asked for exactly that.
- Do not repeat the same tool call with the same input: if something failed, change the approach.
- Be concise. Use Markdown for code and lists. When you are done, say briefly what changed and what is left.
` + todo.PromptLine // promptlines.go names it in /context

// maxInstructionBytes bounds each AGENTS.md copied into the prompt.
const maxInstructionBytes = 32 * 1024

// maxInstructionFileBytes bounds an AGENTS.md read at all: a larger one is
// skipped with a warning (instructions.go).
const maxInstructionFileBytes = 1 << 20

// Environment is the dynamic part of the system prompt: where the agent
// works and the instructions the user and the repository give it.
type Environment struct {
	Dir       string
	Date      time.Time
	GitStatus string // short status and branch; empty outside a repository
	// Instructions are the contents of AGENTS.md files, with their paths.
	Instructions []Instruction
	// Skipped are the instruction files not used, one warning line each
	// ("PATH is skipped: REASON").
	Skipped []string
}

// Instruction is one instructions file.
type Instruction struct {
	Path, Text string
}

// DetectEnvironment gathers the dynamic prompt for dir: the date, git's
// branch and short status (bounded, with a timeout) and the AGENTS.md of
// the repository and of the user, read by the tools' rules
// (instructions.go: a refused one is named in Skipped).
func DetectEnvironment(ctx context.Context, dir, userAgentsFile string) Environment {
	env := Environment{Dir: dir, Date: time.Now()}
	var gitErr error
	env.GitStatus, gitErr = gitStatus(ctx, dir)
	if refused := (*gitcmd.RepoConfigError)(nil); errors.As(gitErr, &refused) {
		env.Skipped = append(env.Skipped, refused.Warning)
	}
	readInstructions(ctx, &env, instructionFiles(dir, userAgentsFile)) // instructions.go
	return env
}

// PendingEnvironment is an Environment being gathered in the background
// (GatherEnvironment): a command starts it as soon as it knows its
// directory, so that git and the AGENTS.md files are read while the
// database opens and the session and first message are written, rather
// than before them (Options.Environment).
type PendingEnvironment struct {
	dir   string
	began time.Time
	done  chan struct{}
	env   Environment
}

// GatherEnvironment starts gathering the environment of a session in dir
// (what Open would: DetectEnvironment with the user's AGENTS.md) in a
// goroutine, which ends when it has (git is bounded by gitStatus's timeout
// and by ctx).
func GatherEnvironment(ctx context.Context, dir string) *PendingEnvironment {
	p := &PendingEnvironment{dir: dir, began: time.Now(), done: make(chan struct{})}
	userAgentsFile := config.UserAgentsFile(getenv)
	go func() {
		defer close(p.done)
		p.env = DetectEnvironment(ctx, dir, userAgentsFile)
	}()
	return p
}

// Wait returns the environment once it is gathered.
func (p *PendingEnvironment) Wait() Environment {
	<-p.done
	return p.env
}

// gitStatus returns git's short status and branch for the prompt, "" when
// there is none; err says why (a repository refused: *gitcmd.RepoConfigError).
func gitStatus(ctx context.Context, dir string) (string, error) {
	return gitStatusWithin(ctx, dir, headlessStatusBudget)
}

// gitStatusWithin is gitStatus waiting at most budget for the status
// started early (gitbudget.go).
func gitStatusWithin(ctx context.Context, dir string, budget time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, earlygit.Timeout)
	defer cancel()
	// A headless run's first turn takes the status started while the
	// program initialised (earlygit), waiting at most budget for it.
	// gitcmd runs nothing the repository configures and leaves .git as
	// it was; no child git starts in a submodule.
	out, ok, err := earlygit.TakeWithin(ctx, budget, dir, earlygit.StatusArgs...)
	if errors.Is(err, earlygit.ErrNotInTime) {
		return statusNotInTime(budget), nil
	}
	if !ok {
		out, err = gitcmd.Output(ctx, dir, earlygit.StatusArgs...)
	}
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	const maxLines = 40
	if len(lines) > maxLines {
		rest := len(lines) - maxLines
		lines = append(lines[:maxLines], fmt.Sprintf("… and %d more changed files", rest))
	}
	return strings.Join(lines, "\n"), nil
}

// Render writes the dynamic part of the system prompt.
func (e Environment) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Working directory: %s\n", e.Dir)
	fmt.Fprintf(&b, "Today's date: %s\n", e.Date.Format("2006-01-02"))
	if e.GitStatus != "" {
		fmt.Fprintf(&b, "\nGit status at the start of the session:\n%s\n", e.GitStatus)
	} else {
		b.WriteString("Not a git repository.\n")
	}
	for _, in := range e.Instructions {
		fmt.Fprintf(&b, "\nInstructions from %s:\n%s\n", in.Path, strings.TrimSpace(in.Text))
	}
	return b.String()
}

// promptFreshFor is how old the environment Open gathered may be at the
// start of the first turn and still be used: a turn sent right after Open
// (a headless run) does not run git twice. Later turns always gather it.
const promptFreshFor = time.Second

// prefetchFreshFor is how old an environment gathered ahead of a turn
// (Options.Environment, PrefetchEnvironment: the chat starts it when the
// user starts typing the message) may be at the start of that turn and
// still be used, so that git does not sit between Enter and the request.
// An older one is gathered again.
const prefetchFreshFor = 20 * time.Second

// PrefetchEnvironment starts gathering the system prompt's environment for
// the next turn while the session is idle (the user is typing), unless a
// recent one is already pending, and the first time, warming the request
// cache of a long session (reqwarm.go), and has the provider open its
// connection ahead of the request (provider.Preconnector) — unless a
// recent gathering is pending: whoever started it for the coming turn
// (Options.Environment: the chat's first key of a fresh chat) opened the
// connection with it. It returns at once, and does nothing once the
// runner closes (Close's stopWarming: a runner the chat opened ahead may
// be closed while its warming starts).
func (r *Runner) PrefetchEnvironment() {
	if !r.stepper.warm.begin() {
		return
	}
	defer r.stepper.warm.running.Done()
	defer r.stepper.warmRequestCache()
	r.state.mu.Lock()
	p := r.state.pendingEnv
	pending := p != nil && time.Since(p.began) < prefetchFreshFor/2
	if !pending && !r.turns.busy && r.toolEnv != nil {
		r.state.pendingEnv = GatherEnvironment(context.Background(), r.toolEnv.Dir)
	}
	r.state.mu.Unlock()
	if pc, ok := r.opt.Provider.(provider.Preconnector); ok && !pending {
		pc.Preconnect()
	}
}

// refreshPrompt gathers the environment again at the start of a turn (git
// is bounded by gitStatus's timeout). The system messages keep the git
// status of the start of the session, so only a change of a stable part
// (the date, an instruction file) makes the second one again — the first
// never changes; a new git status goes with the turn's user message
// instead (envcontext.go). The calculator counts the new prompt. The
// caller holds busy.
func (r *Runner) refreshPrompt(ctx context.Context) {
	system := systemOf(r.opt.SystemPrompt, r.hooks, r.opt.Skills)
	set := func(env Environment, at time.Time) {
		if r.state.setSystem(system(r.state.sessionEnv(env)), at) {
			r.calcp.Load().SetFixed(r.fixedTokens())
		}
	}
	defer func() { statusNote{state: r.state, store: r.store, ev: r.ev, calc: r.calcp.Load()}.attach(ctx) }()
	fromOpen := r.state.promptFromOpen
	r.state.promptFromOpen = false
	r.state.mu.Lock() // PrefetchEnvironment sets it while idle
	p := r.state.pendingEnv
	r.state.pendingEnv = nil
	r.state.mu.Unlock()
	if p != nil {
		// Gathered beside Open and the first message (Options.Environment)
		// or while the user typed (PrefetchEnvironment).
		env := p.Wait()
		r.trace.phase("prompt env", p.began)
		r.state.skipped.report(env.Skipped, r.ev.note)
		if time.Since(p.began) < prefetchFreshFor {
			set(env, p.began)
			return
		}
	}
	if fromOpen && time.Since(r.state.promptAt) < promptFreshFor {
		return
	}
	env := DetectEnvironment(ctx, r.toolEnv.Dir, config.UserAgentsFile(getenv))
	r.state.skipped.report(env.Skipped, r.ev.note)
	set(env, time.Now())
}

// setSystem makes sys, gathered at, the system prompt and reports whether
// it changed (the calculator then counts it again). Open and the loop
// holding busy call it.
func (s *sessionState) setSystem(sys []string, at time.Time) bool {
	s.promptAt = at
	if slices.Equal(sys, s.system) {
		return false
	}
	s.mu.Lock()
	s.system = sys
	s.mu.Unlock()
	return true
}

// openPrompt sets the system prompt of a session being opened in dir: the
// environment is gathered now, or, when pending (Options.Environment) is
// gathering it for dir, left to the first turn, which waits for it
// (refreshPrompt); until then the system prompt is its stable part alone.
// system makes the messages of an environment (systemOf).
func openPrompt(ctx context.Context, s *sessionState, pending *PendingEnvironment, dir string, system func(Environment) []string, note func(string), phase func(string, time.Time)) {
	if p := pending; p != nil && p.dir == dir {
		s.pendingEnv = p
		s.system = []string{stablePrompt}
		return
	}
	began := time.Now()
	env := DetectEnvironment(ctx, dir, config.UserAgentsFile(getenv))
	s.skipped.report(env.Skipped, note)
	s.system = system(s.sessionEnv(env))
	s.promptAt, s.promptFromOpen = time.Now(), true
	phase("prompt env", began)
}

// systemOf makes the session's system messages (make: Options.SystemPrompt,
// nil for SystemPrompt); the skills list (skills.go) and the SessionStart
// hooks' context follow them (hooks.go).
func systemOf(make func(Environment) []string, h *hookPoints, sk *Skills) func(Environment) []string {
	if make == nil {
		make = SystemPrompt
	}
	return func(env Environment) []string { return h.withContext(sk.withList(make(env), env.Dir)) }
}

// SystemPrompt returns the two system messages: the stable part first and
// the dynamic part after it.
func SystemPrompt(env Environment) []string {
	return []string{stablePrompt, env.Render()}
}
