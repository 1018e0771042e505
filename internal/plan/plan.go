// Package plan is plan mode: a session mode in which the model may look
// but not touch. It is enforced where tools are offered and run, not by
// the prompt.
//
// The contract:
//
//   - A *Mode is shared by whoever switches it (the chat's /plan and
//     Shift+Tab, agent run --plan, config mode: plan) and the loop, which
//     reads it before every step and every tool call; a nil *Mode is the
//     default mode. Safe for concurrent use.
//   - In plan mode the model is offered (Offer) only the tools that
//     cannot change anything: the read-only ones (read, grep, glob, ls,
//     recall, tool_search, task when all its subagent's tools are
//     read-only; a tool that implements Safe), MCP tools the user marked
//     read-only in the user config (mcp.NAME.read_only, or
//     mcp.NAME.read_only_tools; a project file's marks are ignored: a
//     repository cannot vouch for its own servers),
//     call_tool (each call is judged as the tool it names), and bash for
//     the command lines tools.ReadOnlyCommand proves read-only.
//   - Every call is judged again when it runs (Refusal), whatever was
//     offered: a model may call a tool it was not offered, or bash with a
//     line that writes. A refused call does not run; its result is a tool
//     error that says plan mode is on, and the turn goes on.
//   - Extra tools (MCP) pass through Source, so tool_search finds only
//     what plan mode allows.
package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// The modes, as config mode and the hook payload's permission_mode name
// them.
const (
	Default = "default"
	Plan    = "plan"
)

// Mode is a session's mode. Make it with New; a nil *Mode is Default.
type Mode struct {
	mu    sync.Mutex
	on    bool
	marks func(name string) bool // MCP tools marked read-only
}

// New returns a Mode, in plan mode when on, that trusts the read-only
// marks of servers (config mcp).
func New(on bool, servers map[string]config.MCPServer) *Mode {
	return &Mode{on: on, marks: Marks(servers)}
}

// On reports whether plan mode is on.
func (m *Mode) On() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.on
}

// Set turns plan mode on or off.
func (m *Mode) Set(on bool) {
	m.mu.Lock()
	m.on = on
	m.mu.Unlock()
}

// Toggle switches to the other mode and returns the new one's name.
func (m *Mode) Toggle() string {
	m.mu.Lock()
	m.on = !m.on
	m.mu.Unlock()
	return m.Name()
}

// Name is Plan or Default.
func (m *Mode) Name() string {
	if m.On() {
		return Plan
	}
	return Default
}

// Marks returns whether an MCP tool (SERVER__TOOL) is marked read-only by
// the user's config: its server has read_only, or lists the tool in
// read_only_tools. Servers a project file declared are never trusted.
func Marks(servers map[string]config.MCPServer) func(name string) bool {
	return func(name string) bool {
		server, tool, ok := strings.Cut(name, "__")
		if !ok {
			return false
		}
		s, ok := servers[server]
		if !ok || s.Project != "" {
			return false
		}
		if s.ReadOnly {
			return true
		}
		for _, t := range s.ReadOnlyTools {
			if t == tool {
				return true
			}
		}
		return false
	}
}

// Safe is implemented by a tool that is not read-only (its calls do not
// run in parallel) but changes nothing plan mode protects — no file, no
// process, nothing outside the session's own state (a todo list): plan
// mode offers and runs it when PlanSafe returns true.
type Safe interface {
	PlanSafe() bool
}

// allowed reports whether t may be offered in plan mode.
func (m *Mode) allowed(t tools.Tool) bool {
	safe, _ := t.(Safe)
	switch name := t.Name(); {
	case t.ReadOnly(), safe != nil && safe.PlanSafe(), name == toolsearch.ProxyName, name == bashName:
		return true
	default:
		return m.marks != nil && m.marks(name)
	}
}

const bashName = "bash"

// Offer returns the tools the model is offered in the mode now: ts as
// they are in the default mode; in plan mode those allowed, bash with a
// description that says which lines run.
func (m *Mode) Offer(ts []tools.Tool) []tools.Tool {
	if !m.On() {
		return ts
	}
	out := make([]tools.Tool, 0, len(ts))
	for _, t := range ts {
		if !m.allowed(t) {
			continue
		}
		if t.Name() == bashName {
			t = planBash{t}
		}
		out = append(out, t)
	}
	return out
}

// Refusal returns why call may not run in the mode now, "" when it may.
// call is the call as it runs (a call_tool call unwrapped to the tool it
// names); reg is the registry it would run in.
func (m *Mode) Refusal(reg *tools.Registry, call tools.Call) string {
	if !m.On() {
		return ""
	}
	if call.Name == bashName {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(call.Input, &in) != nil {
			return refused("bash", "its input is not valid JSON")
		}
		if ok, why := tools.ReadOnlyCommand(in.Command); !ok {
			return refused("bash", "only command lines proven read-only run (ls, cat, grep, git log, git diff...), and this one is not: "+why)
		}
		return ""
	}
	if t, ok := reg.Get(call.Name); ok && t.Name() != toolsearch.ProxyName && m.allowed(t) {
		return ""
	}
	return refused(call.Name, "it can change files or run programs")
}

// refused is the tool error of a call plan mode refuses.
func refused(tool, why string) string {
	return fmt.Sprintf("Refused: plan mode is on, so %s did not run: %s. Nothing was changed. "+
		"In plan mode, investigate with the read-only tools and answer with your plan; "+
		"the user approves it before anything is changed.", tool, why)
}

// Source returns src as plan mode sees it: in plan mode, only the tools
// allowed (MCP tools marked read-only); all of them otherwise. nil when
// src is nil.
func Source(m *Mode, src tools.Source) tools.Source {
	if src == nil || m == nil {
		return src
	}
	return source{m, src}
}

type source struct {
	m   *Mode
	src tools.Source
}

func (s source) Tools() []tools.Tool {
	ts := s.src.Tools()
	if !s.m.On() {
		return ts
	}
	out := make([]tools.Tool, 0, len(ts))
	for _, t := range ts {
		if t.ReadOnly() || s.m.marks != nil && s.m.marks(t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

// planBash is bash as plan mode offers it: its description says which
// lines run.
type planBash struct{ tools.Tool }

func (b planBash) Description() string {
	return b.Tool.Description() + " Plan mode is on: only read-only command lines run (ls, cat, head, grep, wc, git log, git diff, git show...); " +
		"redirection, sed, awk, find, interpreters and anything that writes are refused."
}
