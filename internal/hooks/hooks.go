// Package hooks runs the user's commands at fixed points of a session,
// with Claude Code's event names, configuration shape and protocol, so that
// hooks written for Claude Code work here unchanged.
//
// The contract:
//
//   - The loop calls Runner.Fire(ctx, Event) at each point and acts on the
//     Outcome. A nil *Runner, or a Runner with no hook for the event,
//     returns the zero Outcome at once, without allocating.
//   - Events: SessionStart (source startup|resume), UserPromptSubmit
//     (prompt), PreToolUse and PostToolUse (tool_name, tool_input,
//     tool_use_id; tool_response after), PreCompact and PostCompact
//     (trigger manual|auto; custom_instructions before, compact_summary
//     after) and Stop (stop_hook_active). Every payload also carries
//     session_id, transcript_path (empty: sessions live in SQLite), cwd and
//     hook_event_name. See payload.go.
//   - Matchers select hooks by the tool name (tool events), the trigger
//     (compaction) or the source (SessionStart), and are ignored for the
//     other events. "" and "*" match everything; a matcher of only letters,
//     digits, _ and | is a list of exact names; anything else is a regular
//     expression that may match anywhere in the name. A tool is matched
//     under its own name (bash, SERVER__TOOL) and under Claude Code's
//     (Bash, mcp__SERVER__TOOL): names.go.
//   - Every matching hook of an event runs at once, in parallel (identical
//     commands once), as `sh -c COMMAND` in the session's directory, with
//     the event as one JSON object on stdin. Its environment is the
//     agent's without its secrets (secrets.Environ), plus
//     AGENT_PROJECT_DIR and CLAUDE_PROJECT_DIR (the session's directory),
//     AGENT_SESSION_ID and AGENT_HOOK_EVENT. It runs at most its timeout
//     (default 60 s); then, or when ctx is done, its whole process group
//     is killed. It is started through package childproc: its shell dies
//     with the agent, even a killed one, and what the shell started is
//     stopped by the agent's next start (Options.Children).
//   - Exit 0: stdout that is a JSON object is the hook's decision (below);
//     other stdout is context for the model for UserPromptSubmit and
//     SessionStart, and is shown to the user for the other events. Exit 2:
//     the event is blocked and stderr is the reason (PreToolUse: the call
//     is not run; PostToolUse and Stop: the model is told; UserPromptSubmit:
//     the prompt is not sent; PreCompact: no compaction; SessionStart and
//     PostCompact cannot be blocked and show it as an error). Any other
//     exit, a timeout or a failure to start is an error shown to the user
//     that blocks nothing.
//   - JSON decisions: "continue": false stops (the turn, the prompt) with
//     "stopReason"; "decision": "block" with "reason"; "systemMessage" is
//     shown to the user; "hookSpecificOutput" carries
//     "permissionDecision" (allow|deny|ask) with
//     "permissionDecisionReason" for PreToolUse, and "additionalContext".
//     The legacy PreToolUse "decision": "approve" means allow.
//   - Several hooks combine: any block blocks, their reasons joined in
//     configuration order; deny wins over ask, ask over allow; contexts are
//     joined in configuration order; any "continue": false stops.
//   - Output is bounded (MaxOutputBytes per stream, the rest dropped and
//     said so) and sanitised (terminal escapes removed, secret values
//     redacted) before the model or the user sees any of it.
//
// Decisions are pure functions (decide.go) tested without processes; the
// process itself is exec.go. The repository files a hook's command runs
// (a write to them is code execution) are read statically: files.go.
package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ctxloop/agent/internal/sandbox"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/childproc"
)

// Event names: Claude Code's.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	PreCompact       = "PreCompact"
	PostCompact      = "PostCompact"
	Stop             = "Stop"
)

// Events are the event names hooks may be configured for.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, PostCompact, Stop}

// Permission decisions of a PreToolUse hook.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// Compaction triggers and session sources.
const (
	TriggerManual = "manual"
	TriggerAuto   = "auto"
	SourceStartup = "startup"
	SourceResume  = "resume"
)

// DefaultTimeout bounds a hook that sets no timeout.
const DefaultTimeout = 60 * time.Second

// MaxOutputBytes bounds what is kept of each of a hook's output streams.
const MaxOutputBytes = 64 << 10

// Event is one point of a session at which hooks fire. Name, SessionID and
// Dir are always set; the other fields belong to some events only.
type Event struct {
	Name      string
	SessionID string
	// Dir is the session's directory: the hooks' working directory, cwd
	// and AGENT_PROJECT_DIR.
	Dir string
	// Mode is the session's mode, "default" or "plan" (internal/plan):
	// every payload's permission_mode.
	Mode string

	// Tool events. Tool is our name of the tool (bash, SERVER__TOOL);
	// ToolInput its input as the model sent it.
	Tool      string
	ToolInput json.RawMessage
	ToolUseID string
	// PostToolUse: the result.
	ToolOutput  string
	ToolIsError bool

	// UserPromptSubmit.
	Prompt string
	// PreCompact and PostCompact: TriggerManual or TriggerAuto;
	// CustomInstructions is the focus given to the compaction, Summary
	// the summary it wrote.
	Trigger            string
	CustomInstructions string
	Summary            string
	// SessionStart: SourceStartup or SourceResume, and the model.
	Source string
	Model  string
	// Stop: StopHookActive is set when the turn already went on because
	// of a Stop hook; LastAssistantMessage is the model's final text.
	StopHookActive       bool
	LastAssistantMessage string
}

// Outcome is what the hooks of one event decided, together.
type Outcome struct {
	// Blocked: some hook blocked the event (exit 2, "decision": "block",
	// or a PreToolUse "permissionDecision": "deny"); Reason says why.
	Blocked bool
	Reason  string
	// Permission is the PreToolUse decision: Allow, Deny, Ask or "" (no
	// opinion). Deny implies Blocked.
	Permission string
	// Context is text for the model (additionalContext, and the plain
	// stdout of UserPromptSubmit and SessionStart hooks).
	Context string
	// Stop: some hook said "continue": false; StopReason is for the user.
	Stop       bool
	StopReason string
	// Runs are the hooks that ran, in configuration order.
	Runs []Run
}

// Run is one hook that ran, as the user is shown it.
type Run struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	// Source is "user" or the project file the hook comes from.
	Source string `json:"source"`
	// ExitCode is -1 when the command did not exit by itself (timeout,
	// cancel, failure to start).
	ExitCode int `json:"exit_code"`
	// Output is what the user is shown: plain stdout, a systemMessage,
	// stderr of a block or an error. Empty when the hook said nothing.
	Output   string        `json:"output,omitempty"`
	Blocked  bool          `json:"blocked,omitempty"`
	TimedOut bool          `json:"timed_out,omitempty"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Hook is one configured hook.
type Hook struct {
	Event   string
	Matcher string
	Command string
	// Timeout is 0 for DefaultTimeout.
	Timeout time.Duration
	// Source is "user" or the project file's path.
	Source string
	// Sandbox is the OS sandbox mode the hook opted into (config
	// hooks...sandbox); "" or off runs it unconfined. See exec.go.
	Sandbox sandbox.Mode
}

// Options configure a Runner.
type Options struct {
	// Env is the environment the hooks start from; nil means os.Environ().
	// Variables carrying Secrets are removed from it.
	Env []string
	// Secrets are values no hook may receive or show (the API key).
	Secrets []string
	// Children records the hooks' process groups while they run, for the
	// next start to stop what a crashed agent left (nil: not recorded).
	Children *childproc.Registry
	// Sandbox is the policy a hook that opts into the sandbox runs under
	// (network, read-only and writable directories; the mode is the
	// hook's, the workspace the session's directory).
	Sandbox sandbox.Policy
}

// Runner runs the configured hooks. It is safe for concurrent use.
type Runner struct {
	byEvent  map[string][]*hook
	env      []string
	secrets  []string
	children *childproc.Registry
	sandbox  sandbox.Policy // for the hooks that opt in (exec.go)
}

// hook is a Hook ready to match.
type hook struct {
	Hook
	m matcher
}

// New returns a Runner for hs. A hook with an unknown event, an empty
// command or a matcher that is not a valid regular expression is left out,
// with a warning naming it. It returns nil (no hooks: Fire costs nothing)
// when none is left.
func New(hs []Hook, opt Options) (*Runner, []string) {
	var warnings []string
	by := map[string][]*hook{}
	for _, h := range hs {
		if !knownEvent(h.Event) {
			warnings = append(warnings, fmt.Sprintf("hooks: unknown event %q (from %s) is ignored; known events: %s", h.Event, h.Source, strings.Join(Events, ", ")))
			continue
		}
		if strings.TrimSpace(h.Command) == "" {
			warnings = append(warnings, fmt.Sprintf("hooks: a %s hook from %s has no command and is ignored", h.Event, h.Source))
			continue
		}
		m, err := compileMatcher(h.Matcher)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("hooks: %s matcher %q (from %s) is ignored: %v", h.Event, h.Matcher, h.Source, err))
			continue
		}
		if h.Timeout <= 0 {
			h.Timeout = DefaultTimeout
		}
		by[h.Event] = append(by[h.Event], &hook{Hook: h, m: m})
	}
	if len(by) == 0 {
		return nil, warnings
	}
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	return &Runner{byEvent: by, env: baseEnv(env, opt.Secrets), secrets: opt.Secrets, children: opt.Children, sandbox: opt.Sandbox}, warnings
}

func knownEvent(name string) bool {
	for _, e := range Events {
		if e == name {
			return true
		}
	}
	return false
}

// Has reports whether any hook is configured for the event.
func (r *Runner) Has(event string) bool {
	return r != nil && len(r.byEvent[event]) > 0
}

// Without returns a Runner without the hooks of these events (nil when
// none is left); r is unchanged.
func (r *Runner) Without(events ...string) *Runner {
	if r == nil {
		return nil
	}
	by := map[string][]*hook{}
	for e, hs := range r.byEvent {
		if !slices.Contains(events, e) {
			by[e] = hs
		}
	}
	if len(by) == 0 {
		return nil
	}
	return &Runner{byEvent: by, env: r.env, secrets: r.secrets, children: r.children}
}

// Hooks returns the configured hooks, by event in Events order.
func (r *Runner) Hooks() []Hook {
	if r == nil {
		return nil
	}
	var out []Hook
	for _, e := range Events {
		for _, h := range r.byEvent[e] {
			out = append(out, h.Hook)
		}
	}
	return out
}

// Fire runs the hooks of ev.Name that match it, in parallel, and returns
// what they decided together. It returns when every one has ended (or
// was killed at its timeout or when ctx was done).
func (r *Runner) Fire(ctx context.Context, ev Event) Outcome {
	if r == nil {
		return Outcome{}
	}
	hs := r.byEvent[ev.Name]
	if len(hs) == 0 {
		return Outcome{}
	}
	return r.fire(ctx, hs, ev)
}

// fire is Fire past the cheap checks: ev escapes to the hooks' goroutines
// from here, so the checks above allocate nothing.
func (r *Runner) fire(ctx context.Context, hs []*hook, ev Event) Outcome {
	sel := selectHooks(hs, matchNames(ev))
	if len(sel) == 0 {
		return Outcome{}
	}
	payload := Payload(ev)
	results := make([]execResult, len(sel))
	var wg sync.WaitGroup
	for i, h := range sel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.exec(ctx, h, ev, payload)
		}()
	}
	wg.Wait()
	vs := make([]verdict, len(sel))
	for i, h := range sel {
		res := results[i]
		res.stdout = r.clean(res.stdout)
		res.stderr = r.clean(res.stderr)
		vs[i] = interpret(ev.Name, h.Command, res)
		vs[i].run.Source = h.Source
	}
	return merge(ev.Name, vs)
}

// selectHooks picks the hooks whose matcher matches one of names, each
// command once, in configuration order.
func selectHooks(hs []*hook, names []string) []*hook {
	var sel []*hook
	for _, h := range hs {
		if !h.m.match(names) {
			continue
		}
		dup := false
		for _, s := range sel {
			if s.Command == h.Command {
				dup = true
				break
			}
		}
		if !dup {
			sel = append(sel, h)
		}
	}
	return sel
}

// EventsOf returns the event names of c's hooks, sorted.
func EventsOf[V any](c map[string]V) []string {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
