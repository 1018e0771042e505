package config

// The hooks section of a config file has Claude Code's shape, so that a
// user can paste theirs:
//
//	"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
//	           "hooks": [{"type": "command", "command": "~/bin/check", "timeout": 30}]}]}
//
// Hooks come from the user file. A project file's hooks are kept apart
// (Config.ProjectHooks): they run only once the user approved them (see
// internal/hooks and internal/approval), never merely because the
// repository says so.

// Hooks maps an event name (PreToolUse, PostToolUse, UserPromptSubmit,
// PreCompact, PostCompact, Stop, SessionStart) to its matcher groups.
type Hooks map[string][]HookGroup

// HookGroup is the commands run for the event when Matcher matches (a
// regular expression on the tool name for tool events; empty or "*"
// matches everything).
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one hook. Type is "command" (the only kind run; others
// are skipped with a warning); Command runs with sh -c; TimeoutS is in
// seconds (0: the default, 60).
type HookCommand struct {
	Type     string  `json:"type"`
	Command  string  `json:"command"`
	TimeoutS float64 `json:"timeout,omitempty"`
	// Sandbox, when set ("read-only" or "workspace-write"), runs the hook
	// in the OS sandbox (internal/sandbox) with that mode; the network
	// follows the config's sandbox.network. Unset: unconfined, as before.
	Sandbox string `json:"sandbox,omitempty"`
}
