// Package config resolves the agent's configuration: command-line flags over
// environment over the project file (.agent/config.json in the directory or a
// parent) over the user file ($XDG_CONFIG_HOME/agent/config.json), and the
// model catalog of context windows, output limits and prices.
//
// A project file is part of a repository someone else may have written, so it
// may set models, compaction and tool limits but never the base URL, the key,
// permissions or prices: those are ignored with a warning. The model and
// small model it names are billed to the user, so they apply only with a
// warning that says so; its models entries change limits, never a price.
// It may declare MCP servers, which start only once the user approved them.
package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Defaults that apply when nothing else is set.
const (
	DefaultModel   = "gpt-4.1"
	DefaultBaseURL = "https://api.openai.com/v1"

	DefaultStreamIdleTimeout    = 120 * time.Second
	DefaultSavedOutputMaxBytes  = 64 << 20 // one saved tool output
	DefaultOutputsMaxTotalBytes = 1 << 30  // all saved outputs together

	DefaultSnapshotMaxFileBytes = 2 << 20 // a larger file is left out of checkpoints
	DefaultSnapshotCapBytes     = 1 << 30 // one project's checkpoint store
	// DefaultSnapshotIgnoredMaxBytes: a larger ignored file is listed, not kept.
	DefaultSnapshotIgnoredMaxBytes = 1 << 20
	// DefaultSnapshotMaxFiles and DefaultSnapshotFirst: the budget of a
	// whole-tree checkpoint (Snapshots.MaxFiles, FirstSnapshot).
	DefaultSnapshotMaxFiles = 200_000
	DefaultSnapshotFirst    = 5 * time.Second

	DefaultToolSearchThreshold = 0.10 // tool_search_threshold: a tenth of the window
)

// Snapshots configures checkpoints (/undo, /rewind, /diff): the snapshots
// of the working directory taken around the agent's steps. The config key
// is "checkpoints"; "snapshots" is its older alias ("checkpoints" wins
// where both set a field). Only a user file may set them: a repository
// must not be able to switch off the user's undo or fill the disk.
type Snapshots struct {
	Enabled bool `json:"enabled"`
	// MaxFileBytes is the size over which a file is left out (and
	// reported); IgnoredMaxBytes the same for a file .gitignore hides
	// (negative: no ignored file is kept); CapBytes bounds one project's
	// store, the oldest snapshots going first.
	MaxFileBytes    int64 `json:"max_file_bytes"`
	IgnoredMaxBytes int64 `json:"ignored_max_bytes"`
	CapBytes        int64 `json:"cap_bytes"`
	// MaxFiles and FirstSnapshot are the budget of a whole-tree
	// checkpoint: a tree with more files, or whose first checkpoint takes
	// longer, is checkpointed by the paths its tools name only (0: no
	// bound).
	MaxFiles      int           `json:"max_files"`
	FirstSnapshot time.Duration `json:"-"` // from first_snapshot_seconds
}

// snapshotsFile is the "checkpoints" (or "snapshots") object of a file.
type snapshotsFile struct {
	Enabled         *bool    `json:"enabled"`
	MaxFileBytes    *int64   `json:"max_file_bytes"`
	IgnoredMaxBytes *int64   `json:"ignored_max_bytes"`
	CapBytes        *int64   `json:"cap_bytes"`
	MaxFiles        *int     `json:"max_files"`
	FirstSnapshotS  *float64 `json:"first_snapshot_seconds"`
}

// Compaction configures tiers 2 and 3 of context management.
type Compaction struct {
	Auto      bool    `json:"auto"`
	Strategy  string  `json:"strategy"`  // overflow | threshold | manual
	Threshold float64 `json:"threshold"` // fraction of the window, for the threshold strategy
	TailTurns int     `json:"tail_turns"`
	Prune     bool    `json:"prune"`
	// PruneProtect and PruneMinimum are in estimated tokens; 0 (not set)
	// means the defaults, which are scaled down to small windows. A value
	// a file sets is used as it is.
	PruneProtect int64 `json:"prune_protect"`
	PruneMinimum int64 `json:"prune_minimum"`
	// SummaryMaxTokens caps the output of a summary request.
	SummaryMaxTokens int64 `json:"summary_max_tokens"`
	// TailTokens is the token budget of the verbatim tail kept after a
	// summary; 0 means a quarter of the usable window.
	TailTokens int64 `json:"tail_tokens"`
}

// DefaultSummaryMaxTokens is compaction.summary_max_tokens when unset.
const DefaultSummaryMaxTokens = 8192

// Tools configures the tools' limits.
type Tools struct {
	BashMaxOutputChars int `json:"bash_max_output_chars"`
	BashTimeoutS       int `json:"bash_timeout_s"`
	// BashMaxBackground is how many background processes may run at
	// once (tools.bash.max_background; 0: jobs.DefaultMax).
	BashMaxBackground int `json:"bash_max_background"`
	ReadMaxLines      int `json:"read_max_lines"`
	ReadMaxLineLength int `json:"read_max_line_length"`
	// SavedOutputMaxBytes caps one saved full output (head and tail kept,
	// the command stopped past it); OutputsMaxTotalBytes bounds all saved
	// outputs in the data directory together (the oldest go first). Only a
	// user file may set them: a repository must not be able to fill the disk.
	SavedOutputMaxBytes  int64 `json:"saved_output_max_bytes"`
	OutputsMaxTotalBytes int64 `json:"outputs_max_total_bytes"`
	// TodoReminder is config todo.reminder: whether a turn that ends with
	// todo items not done gets one reminder step. Nil: the default, on in
	// `agent run`, off in the chat (TodoReminderOn).
	TodoReminder *bool `json:"todo_reminder,omitempty"`
	// WebFetch and WebSearch are tools.web_fetch and tools.web_search
	// (webfetch.go; user file only, but a project may turn web_fetch off).
	WebFetch  WebFetch  `json:"web_fetch"`
	WebSearch WebSearch `json:"web_search"`
}

// TodoReminderOn reports whether a turn's end reminds the model of its
// open todo items: todo.reminder when set, else headless only.
func (t Tools) TodoReminderOn(headless bool) bool {
	if t.TodoReminder != nil {
		return *t.TodoReminder
	}
	return headless
}

// UI configures the chat's screen (user file only).
type UI struct {
	// Mode is UIFullscreen (the alternate screen, the default) or UIInline
	// (finished messages go to the terminal's own scrollback).
	Mode string `json:"mode"`
	// Notify is how the chat tells an unfocused terminal that a turn ended
	// or a dialog waits: NotifyAuto (by the terminal, tui/notify.go),
	// NotifyOSC9, NotifyOSC777, NotifyBell or NotifyOff.
	Notify string `json:"notify"`
	// Vi turns on the editor's vi keys (normal and insert modes).
	Vi bool `json:"vi"`
}

// The chat's notifications (ui.notify).
const (
	NotifyAuto   = "auto"
	NotifyOSC9   = "osc9"
	NotifyOSC777 = "osc777"
	NotifyBell   = "bell"
	NotifyOff    = "off"
)

// The chat's screen modes (ui.mode).
const (
	UIFullscreen = "fullscreen"
	UIInline     = "inline"
)

// Task configures the task tool's subagents (config task, user file
// only: a repository must not be able to widen what a subagent may do).
type Task struct {
	// Tools are the tools a child session offers besides recall of its
	// own history: DefaultTaskTools (read-only) unless set; never task
	// itself. Write tools still go through the permission check.
	Tools []string `json:"tools"`
	// Model is the child sessions' model; "" means the parent's.
	Model string `json:"model"`
	// MaxSteps bounds a child session's steps (DefaultTaskMaxSteps).
	MaxSteps int `json:"max_steps"`
	// MaxParallel bounds the subagents running at once in this process
	// (DefaultTaskMaxParallel); the task calls of a step beyond it wait
	// for a running one to end.
	MaxParallel int `json:"max_parallel"`
}

// DefaultTaskTools are a subagent's tools when task.tools is not set.
var DefaultTaskTools = []string{"read", "grep", "glob", "ls"}

// DefaultTaskMaxSteps is task.max_steps when unset: a subagent that has
// not answered in this many steps is stopped and reports what it had.
const DefaultTaskMaxSteps = 50

// DefaultTaskMaxParallel is task.max_parallel when unset.
const DefaultTaskMaxParallel = 4

// taskToolNames are the tools task.tools may name: the built-in ones,
// and the web tools (a subagent has them when the session offers them:
// internal/task's SessionOffered).
var taskToolNames = []string{"bash", "read", "write", "edit", "grep", "glob", "ls", "web_fetch", "web_search"}

// Permission modes of a tool.
const (
	PermAllow = "allow"
	PermAsk   = "ask"
	PermDeny  = "deny"
)

// The session modes of config mode.
const (
	ModeDefault = "default"
	ModePlan    = "plan"
)

// Config is the resolved configuration.
type Config struct {
	Model string
	// ModelExplicit is set when the model came from a flag or the
	// environment: it then also switches a resumed session to it, where a
	// model from a config file only applies to new sessions.
	ModelExplicit bool
	// ModelConfigured is set when the user named the model anywhere: a
	// flag, the environment or a config file. Without it Model is
	// DefaultModel, which only OpenAI's endpoint serves.
	ModelConfigured bool
	SmallModel      string
	BaseURL         string
	// APIKey comes from the environment only, and is never written anywhere.
	APIKey  string `json:"-"`
	DataDir string
	// Dir is the working directory the configuration was resolved for.
	Dir string
	// UserFile and ProjectFile are the files read, empty when absent.
	UserFile    string
	ProjectFile string

	Models      map[string]ModelInfo
	Compaction  Compaction
	Tools       Tools
	Snapshots   Snapshots
	Permissions map[string]string
	// StreamIdleTimeout is how long a model stream may stay silent (before
	// its first byte or between chunks) before the attempt fails as
	// retryable (config stream_idle_timeout_s, user file only; default 120 s).
	StreamIdleTimeout time.Duration
	// UI is the chat's screen: ui.mode, ui.notify, ui.vi, user file only.
	UI UI
	// Budget is the spending cap of a session in USD (config budget, user
	// file only; agent run --max-cost overrides it); 0 means none.
	Budget float64
	// ToolSearchThreshold is the share of the window the MCP tools'
	// schemas may take before they are left out of requests and found
	// through tool_search instead (config tool_search_threshold, user file
	// only; a fraction in [0, 1], default DefaultToolSearchThreshold; 0
	// always defers them). See internal/toolsearch.
	ToolSearchThreshold float64
	// MCP are the MCP servers by name (config mcp; see MCPServer). A
	// project file's entries carry Project and start only once approved.
	MCP map[string]MCPServer
	// MCPAllowEnv names, per server, the environment variables the user
	// lets a project's entry of that name expand as ${VAR} (config
	// mcp_allow_env, user file only; see MCPServer.AllowEnv).
	MCPAllowEnv map[string][]string
	// Task configures the task tool's subagents (user file only).
	Task Task
	// Hooks are the user file's hooks; ProjectHooks the project file's,
	// which run only once approved (hooks.go).
	Hooks        Hooks
	ProjectHooks Hooks
	// Mode is the mode a session starts in: ModeDefault or ModePlan
	// (config mode; a project file may set it: plan mode only takes
	// tools away). See internal/plan.
	Mode string
	// Verify is the check before "done" (config verify; verify.go).
	Verify Verify
	// Sandbox confines the commands the agent runs (sandbox.go; user file only).
	Sandbox Sandbox
	// Memory is how the remember tool keeps facts across sessions
	// (memory.go; user file only).
	Memory Memory
	// LSP are the language servers whose diagnostics follow each edit
	// (lsp.go; user file only).
	LSP LSP
	// Warnings are problems worth showing the user that do not stop the
	// agent (an ignored project setting, an unknown model).
	Warnings []string

	// thresholdSet is set when a file set compaction.threshold (a warning
	// names it when the strategy in force does not use it).
	thresholdSet bool
}

// Flags are the global command-line flags; empty means not given.
type Flags struct {
	Model, BaseURL, DataDir, ConfigFile string
}

func (c *Config) validate() error {
	switch c.Compaction.Strategy {
	case "overflow", "threshold", "manual":
	default:
		return fmt.Errorf("config: compaction.strategy %q: want overflow, threshold or manual", c.Compaction.Strategy)
	}
	if c.Compaction.Threshold <= 0 || c.Compaction.Threshold > 1 {
		return fmt.Errorf("config: compaction.threshold %v: want a fraction in (0, 1]", c.Compaction.Threshold)
	}
	if t := c.ToolSearchThreshold; t < 0 || t > 1 {
		return fmt.Errorf("config: tool_search_threshold %v: want a fraction in [0, 1]", t)
	}
	for tool, mode := range c.Permissions {
		switch mode {
		case PermAllow, PermAsk, PermDeny:
		default:
			return fmt.Errorf("config: permissions.%s %q: want allow, ask or deny", tool, mode)
		}
	}
	for _, name := range sortedKeys(c.Models) {
		if e := c.Models[name].Effort; e != "" && !ValidEffortLevel(e) {
			return fmt.Errorf("config: models.%s.effort %q: want %s", name, e, orList(EffortLevels()))
		}
	}
	switch c.UI.Mode {
	case UIFullscreen, UIInline:
	default:
		return fmt.Errorf("config: ui.mode %q: want %s or %s", c.UI.Mode, UIFullscreen, UIInline)
	}
	switch c.UI.Notify {
	case NotifyAuto, NotifyOSC9, NotifyOSC777, NotifyBell, NotifyOff:
	default:
		return fmt.Errorf("config: ui.notify %q: want %s", c.UI.Notify, orList([]string{NotifyAuto, NotifyOSC9, NotifyOSC777, NotifyBell, NotifyOff}))
	}
	if err := c.Sandbox.validate(); err != nil {
		return err
	}
	if err := c.Task.validate(); err != nil {
		return err
	}
	if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return fmt.Errorf("config: base URL %q: want an http:// or https:// URL such as %s", c.BaseURL, DefaultBaseURL)
	}
	return nil
}

func (t Task) validate() error {
	for _, name := range t.Tools {
		switch {
		case name == "task":
			return errors.New("config: task.tools: a subagent cannot start subagents; leave task out")
		case !slices.Contains(taskToolNames, name):
			return fmt.Errorf("config: task.tools: unknown tool %q: want some of %s", name, strings.Join(taskToolNames, ", "))
		}
	}
	if t.MaxSteps < 1 {
		return fmt.Errorf("config: task.max_steps %d: want 1 or more", t.MaxSteps)
	}
	if t.MaxParallel < 1 {
		return fmt.Errorf("config: task.max_parallel %d: want 1 or more", t.MaxParallel)
	}
	return nil
}

// ModelInfo returns the limits and price of a model: the config's entry if
// it has one, else the catalog's, else conservative defaults with the
// family rules and an unknown vision (known false).
func (c *Config) ModelInfo(name string) (info ModelInfo, known bool) {
	if info, ok := c.Models[name]; ok {
		base, _ := lookupCatalog(name)
		if info.ContextWindow == 0 {
			info.ContextWindow = base.ContextWindow
		}
		if info.MaxOutput == 0 {
			info.MaxOutput = base.MaxOutput
		}
		if info.InputLimit == 0 {
			info.InputLimit = base.InputLimit
		}
		if info.ContextWindow == 0 {
			info.ContextWindow = UnknownContextWindow
		}
		if info.MaxOutput == 0 {
			info.MaxOutput = UnknownMaxOutput
		}
		return info, true
	}
	if info, ok := lookupCatalog(name); ok {
		return info, true
	}
	info = unknownModel(name)
	info.ContextWindow, info.MaxOutput = UnknownContextWindow, UnknownMaxOutput
	return info, false
}

// UsesDefaultEndpoint reports whether requests go to OpenAI's API.
func (c *Config) UsesDefaultEndpoint() bool { return c.BaseURL == DefaultBaseURL }

// ErrNoAPIKey is returned by CheckCredentials when OpenAI's endpoint is used
// without a key.
var ErrNoAPIKey = errors.New("no API key: set OPENAI_API_KEY (export OPENAI_API_KEY=sk-…), or point --base-url / OPENAI_BASE_URL at a local OpenAI-compatible server such as Ollama (http://localhost:11434/v1)")

// CheckCredentials reports whether a request can be made: the default
// endpoint needs a key; a custom endpoint (a local server) may not.
func (c *Config) CheckCredentials() error {
	if c.APIKey == "" && c.UsesDefaultEndpoint() {
		return ErrNoAPIKey
	}
	return nil
}

// BashTimeout is the default timeout of a bash call.
func (c *Config) BashTimeout() time.Duration {
	return time.Duration(c.Tools.BashTimeoutS) * time.Second
}
