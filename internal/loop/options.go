package loop

// options.go: what configures a Runner (Options) and the types of its
// results: how a turn ends (TurnResult, the finish reasons) and the
// doom-loop question.

import (
	"context"
	"github.com/ctxloop/agent/internal/plan"
	"github.com/ctxloop/agent/internal/sandbox"
	"time"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
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
	// BudgetHint ends the message of a stop by the cap, telling how to
	// raise it in this front end ("raise it with --max-cost USD"); empty
	// says "raise the budget to go on".
	BudgetHint string
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
	// start: one write, beside its first request: usercommit.go). Until
	// then the session lives in memory only (Stored reports false); a run
	// that ends before sending anything leaves no empty session behind.
	RowOnFirstMessage bool
	// StartupTrace, if set, is told when each start-up phase of the
	// session ends (startuptrace.go); nil traces nothing.
	StartupTrace func(phase string, began time.Time)
	// SystemPrompt makes the system messages from the environment; nil
	// means SystemPrompt. A subagent's session has its own (internal/task).
	SystemPrompt func(Environment) []string
	// Skills are the skills listed in the system prompt and loaded by the
	// skill tool (skills.go); nil means none.
	Skills *Skills
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
	// Mode is the session's mode, shared with whoever switches it (the
	// chat, agent run --plan); nil is the default mode. In plan mode the
	// tool table offers and runs only what internal/plan allows
	// (planmode.go), and a turn's final answer is stored as its plan.
	Mode *plan.Mode
	// Jobs are the session's background processes (bash with background:
	// true), shared with the chat's /jobs; nil: the runner makes a table of
	// its own (tools.bash.max_background). Close stops them all: the
	// session's end. Their groups are recorded in Children while they run.
	Jobs *jobs.Table
	// TodoReminder gives a turn that ends with todo items not done one
	// reminder step (todoreminder.go; config todo.reminder).
	TodoReminder bool
	// Limits are a headless run's step and time limits the model is told
	// about (runlimits.go); nil: none beyond MaxSteps.
	Limits *RunLimits
	// NonInteractive is set for a headless run: a question the model
	// ends a turn with is answered by the run's policy (noninteractive.go).
	NonInteractive bool
	// Sandbox is the OS sandbox bash runs in (internal/sandbox), shared
	// with who changes it (the chat's /sandbox) and with subagents; nil:
	// none.
	Sandbox *sandbox.Setting

	// memoryTokens is Open's: the estimate of the memory section its
	// system prompt ends with (memoryprompt.go); a caller's is ignored.
	memoryTokens int64
	// LSP are the language servers whose diagnostics follow each write
	// and edit, and offer the diagnostics tool (internal/lsp), shared
	// with the chat's /lsp and with subagents; nil: none. Close of the
	// session (not a subagent's) shuts them down.
	LSP *lsp.Servers
	// Editor is the editor whose buffers the file tools read and update
	// (tools.Env.Editor: agent acp with a client's fs capabilities); nil:
	// the disk only.
	Editor tools.Editor
}

// TurnResult is how a turn ended.
type TurnResult struct {
	FinishReason string
	Steps        int
	Err          error
}
