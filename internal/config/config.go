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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
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
}

// snapshotsFile is the "checkpoints" (or "snapshots") object of a file.
type snapshotsFile struct {
	Enabled         *bool  `json:"enabled"`
	MaxFileBytes    *int64 `json:"max_file_bytes"`
	IgnoredMaxBytes *int64 `json:"ignored_max_bytes"`
	CapBytes        *int64 `json:"cap_bytes"`
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
	ReadMaxLines       int `json:"read_max_lines"`
	ReadMaxLineLength  int `json:"read_max_line_length"`
	// SavedOutputMaxBytes caps one saved full output (head and tail kept,
	// the command stopped past it); OutputsMaxTotalBytes bounds all saved
	// outputs in the data directory together (the oldest go first). Only a
	// user file may set them: a repository must not be able to fill the disk.
	SavedOutputMaxBytes  int64 `json:"saved_output_max_bytes"`
	OutputsMaxTotalBytes int64 `json:"outputs_max_total_bytes"`
}

// UI configures the chat's screen (user file only).
type UI struct {
	// Mode is UIFullscreen (the alternate screen, the default) or UIInline
	// (finished messages go to the terminal's own scrollback).
	Mode string `json:"mode"`
}

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

// taskToolNames are the tools task.tools may name: the built-in ones.
var taskToolNames = []string{"bash", "read", "write", "edit", "grep", "glob", "ls"}

// Permission modes of a tool.
const (
	PermAllow = "allow"
	PermAsk   = "ask"
	PermDeny  = "deny"
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
	// UI is the chat's screen: ui.mode, user file only.
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

// file is the JSON shape of a config file; pointers tell set from unset.
type file struct {
	Model      *string               `json:"model"`
	SmallModel *string               `json:"small_model"`
	BaseURL    *string               `json:"base_url"`
	APIKey     *string               `json:"api_key"`
	Models     map[string]modelEntry `json:"models"`
	Compaction *struct {
		Auto         *bool    `json:"auto"`
		Strategy     *string  `json:"strategy"`
		Threshold    *float64 `json:"threshold"`
		TailTurns    *int     `json:"tail_turns"`
		Prune        *bool    `json:"prune"`
		PruneProtect *int64   `json:"prune_protect"`
		PruneMinimum *int64   `json:"prune_minimum"`
		SummaryMax   *int64   `json:"summary_max_tokens"`
		TailTokens   *int64   `json:"tail_tokens"`
	} `json:"compaction"`
	StreamIdleTimeoutS  *float64 `json:"stream_idle_timeout_s"`
	Budget              *float64 `json:"budget"`
	ToolSearchThreshold *float64 `json:"tool_search_threshold"`
	Tools               *struct {
		Bash *struct {
			MaxOutputChars *int `json:"max_output_chars"`
			TimeoutS       *int `json:"timeout_s"`
		} `json:"bash"`
		SavedOutputMaxBytes  *int64 `json:"saved_output_max_bytes"`
		OutputsMaxTotalBytes *int64 `json:"outputs_max_total_bytes"`
		Read                 *struct {
			MaxLines      *int `json:"max_lines"`
			MaxLineLength *int `json:"max_line_length"`
		} `json:"read"`
	} `json:"tools"`
	Permissions map[string]string `json:"permissions"`
	Snapshots   *snapshotsFile    `json:"snapshots"`
	Checkpoints *snapshotsFile    `json:"checkpoints"`
	UI          *struct {
		Mode *string `json:"mode"`
	} `json:"ui"`
	MCP map[string]MCPServer `json:"mcp"`
	// MCPAllowEnv is the user's grant of environment variables to the
	// servers a project declares (mcp.go); a project file's is ignored.
	MCPAllowEnv map[string][]string `json:"mcp_allow_env"`
	Task        *struct {
		Tools       []string `json:"tools"`
		Model       *string  `json:"model"`
		MaxSteps    *int     `json:"max_steps"`
		MaxParallel *int     `json:"max_parallel"`
	} `json:"task"`
	Hooks Hooks `json:"hooks"`
}

// modelEntry is a models entry of a config file; pointers tell set from
// unset (they shadow ModelInfo's fields of the same JSON name), and a limit
// of 0 is unset.
type modelEntry struct {
	ModelInfo
	Price              *priceEntry `json:"price"`
	ReasoningRoundtrip *bool       `json:"reasoning_roundtrip"`
	Vision             *bool       `json:"vision"`
	// Tools false sends the model no tools; true (the default) sends them.
	Tools *bool `json:"tools"`
}

// priceEntry is a price in a config file: each figure set or not.
type priceEntry struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cache_read"`
	CacheWrite *float64 `json:"cache_write"`
}

// apply merges a file into c. Only a user file may set the endpoint,
// permissions and prices: a project file's models entries change limits
// only, over the user's entry or the catalog's.
func (c *Config) apply(f *file, trusted bool) {
	setStr := func(dst *string, v *string) {
		if v != nil && *v != "" {
			*dst = *v
		}
	}
	setStr(&c.Model, f.Model)
	if f.Model != nil && *f.Model != "" {
		c.ModelConfigured = true
	}
	setStr(&c.SmallModel, f.SmallModel)
	for name, e := range f.Models {
		c.Models[name] = mergeModel(c.Models, name, e, trusted)
	}
	if cp := f.Compaction; cp != nil {
		setBool(&c.Compaction.Auto, cp.Auto)
		setStr(&c.Compaction.Strategy, cp.Strategy)
		setNum(&c.Compaction.Threshold, cp.Threshold)
		if cp.Threshold != nil {
			c.thresholdSet = true
			// A threshold and no strategy means the threshold strategy:
			// the default (overflow) would ignore it.
			if cp.Strategy == nil || *cp.Strategy == "" {
				c.Compaction.Strategy = "threshold"
			}
		}
		setNum(&c.Compaction.TailTurns, cp.TailTurns)
		setBool(&c.Compaction.Prune, cp.Prune)
		setNum(&c.Compaction.PruneProtect, cp.PruneProtect)
		setNum(&c.Compaction.PruneMinimum, cp.PruneMinimum)
		if trusted {
			// Wave-2 settings are the user's alone (DESIGN's contract).
			setNum(&c.Compaction.SummaryMaxTokens, cp.SummaryMax)
			setNum(&c.Compaction.TailTokens, cp.TailTokens)
		}
	}
	if t := f.Tools; t != nil {
		if b := t.Bash; b != nil {
			setNum(&c.Tools.BashMaxOutputChars, b.MaxOutputChars)
			setNum(&c.Tools.BashTimeoutS, b.TimeoutS)
		}
		if r := t.Read; r != nil {
			setNum(&c.Tools.ReadMaxLines, r.MaxLines)
			setNum(&c.Tools.ReadMaxLineLength, r.MaxLineLength)
		}
	}
	if !trusted {
		return
	}
	setStr(&c.BaseURL, f.BaseURL)
	if v := f.Budget; v != nil && *v >= 0 {
		c.Budget = *v
	}
	setNum(&c.ToolSearchThreshold, f.ToolSearchThreshold)
	if v := f.StreamIdleTimeoutS; v != nil && *v > 0 {
		c.StreamIdleTimeout = time.Duration(*v * float64(time.Second))
	}
	if t := f.Tools; t != nil {
		setNum(&c.Tools.SavedOutputMaxBytes, t.SavedOutputMaxBytes)
		setNum(&c.Tools.OutputsMaxTotalBytes, t.OutputsMaxTotalBytes)
	}
	for tool, mode := range f.Permissions {
		c.Permissions[tool] = mode
	}
	for _, sn := range []*snapshotsFile{f.Snapshots, f.Checkpoints} { // the alias first
		if sn != nil {
			setBool(&c.Snapshots.Enabled, sn.Enabled)
			setNum(&c.Snapshots.MaxFileBytes, sn.MaxFileBytes)
			setNum(&c.Snapshots.IgnoredMaxBytes, sn.IgnoredMaxBytes)
			setNum(&c.Snapshots.CapBytes, sn.CapBytes)
		}
	}
	if f.UI != nil {
		setStr(&c.UI.Mode, f.UI.Mode)
	}
	if t := f.Task; t != nil {
		if t.Tools != nil {
			c.Task.Tools = t.Tools
		}
		if t.Model != nil {
			c.Task.Model = *t.Model
		}
		if t.MaxSteps != nil {
			c.Task.MaxSteps = *t.MaxSteps
		}
		if t.MaxParallel != nil {
			c.Task.MaxParallel = *t.MaxParallel
		}
	}
	if f.Hooks != nil {
		c.Hooks = f.Hooks
	}
}

// mergeModel returns the entry for name after a file's entry e: the fields
// e sets, over the entry an earlier file gave, else the catalog's, field by
// field — declaring a catalog model's window keeps its price. Only a user
// file (trusted) may set a price.
func mergeModel(models map[string]ModelInfo, name string, e modelEntry, trusted bool) ModelInfo {
	info, ok := models[name]
	if !ok {
		info, _ = lookupCatalog(name)
	}
	for _, f := range []struct {
		dst *int64
		v   int64
	}{
		{&info.ContextWindow, e.ContextWindow},
		{&info.MaxOutput, e.MaxOutput},
		{&info.InputLimit, trustedOnly(e.InputLimit, trusted)},
	} {
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	setBool(&info.ReasoningRoundtrip, e.ReasoningRoundtrip)
	if e.Tools != nil {
		info.NoTools = !*e.Tools
	}
	switch e.Cache {
	case CacheAutomatic, CacheExplicit, CacheNone:
		info.Cache = e.Cache
	}
	if trusted {
		setBool(&info.Vision, e.Vision)
	}
	if p := e.Price; p != nil && trusted {
		setNum(&info.Price.Input, p.Input)
		setNum(&info.Price.Output, p.Output)
		setNum(&info.Price.CacheRead, p.CacheRead)
		setNum(&info.Price.CacheWrite, p.CacheWrite)
	}
	return info
}

// trustedOnly is v from a user file and nothing from a project file.
func trustedOnly(v int64, trusted bool) int64 {
	if !trusted {
		return 0
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

func setNum[T int | int64 | float64](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
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
	switch c.UI.Mode {
	case UIFullscreen, UIInline:
	default:
		return fmt.Errorf("config: ui.mode %q: want %s or %s", c.UI.Mode, UIFullscreen, UIInline)
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
// it has one, else the catalog's, else conservative defaults (known false).
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
	return ModelInfo{ContextWindow: UnknownContextWindow, MaxOutput: UnknownMaxOutput}, false
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

// maxConfigFileBytes bounds a configuration file; a larger one is skipped.
const maxConfigFileBytes = 1 << 20

// readFile reads and parses a configuration file by the tools' rules
// (internal/safefile): a link must lead inside home (unless home is ""),
// only a regular file of at most maxConfigFileBytes is read, without
// blocking. A missing file is nil unless mustExist. A refused file is an
// error when mustExist (the file named with --config), else nil with a
// warning naming it.
func readFile(path, home string, mustExist bool) (f *file, warning string, err error) {
	data, err := safefile.Read(context.Background(), path, home, maxConfigFileBytes)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) && !mustExist:
		return nil, "", nil
	case safefile.Refused(err) && !mustExist:
		return nil, safefile.Warning(path, err), nil
	default:
		return nil, "", fmt.Errorf("read config %s: %w", path, errors.Unwrap(err))
	}
	f = new(file)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(f); err != nil {
		return nil, "", fmt.Errorf("parse config %s: %w", path, err)
	}
	return f, "", nil
}

// findProjectFile looks for .agent/config.json in dir and its parents; a
// link in it must stay inside the directory that holds .agent. The
// nearest one found is the project's, used or (refused) skipped with a
// warning.
func findProjectFile(dir string) (f *file, path, warning string, err error) {
	if dir == "" {
		return nil, "", "", nil
	}
	for d := dir; ; {
		path := filepath.Join(d, ".agent", "config.json")
		if f, warning, err := readFile(path, d, false); err != nil || f != nil || warning != "" {
			return f, path, warning, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, "", "", nil
		}
		d = parent
	}
}

func configHome(getenv func(string) string) string {
	if v := getenv("XDG_CONFIG_HOME"); v != "" {
		return v
	}
	return filepath.Join(home(getenv), ".config")
}

func dataHome(getenv func(string) string) string {
	if v := getenv("XDG_DATA_HOME"); v != "" {
		return v
	}
	return filepath.Join(home(getenv), ".local", "share")
}

func home(getenv func(string) string) string {
	if v := getenv("HOME"); v != "" {
		return v
	}
	h, _ := os.UserHomeDir()
	return h
}

// UserAgentsFile is the user's own AGENTS.md, added to every system prompt.
func UserAgentsFile(getenv func(string) string) string {
	return filepath.Join(configHome(getenv), "agent", "AGENTS.md")
}

// UserCommandsDir is the directory of the user's custom slash commands
// ($XDG_CONFIG_HOME/agent/commands).
func UserCommandsDir(getenv func(string) string) string {
	return filepath.Join(configHome(getenv), "agent", "commands")
}

// Home is the user's home directory ($HOME, else the system's idea of it).
func Home(getenv func(string) string) string { return home(getenv) }
