package plan

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// fakeTool is an MCP-like tool that is not read-only.
type fakeTool struct{ name string }

func (t fakeTool) Name() string                { return t.name }
func (t fakeTool) Description() string         { return t.name }
func (t fakeTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t fakeTool) ReadOnly() bool              { return false }
func (t fakeTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	return tools.Result{Output: "ran"}, nil
}

// safeTool changes only session state: plan mode allows it.
type safeTool struct{ fakeTool }

func (safeTool) PlanSafe() bool { return true }

type fixed []tools.Tool

func (f fixed) Tools() []tools.Tool { return f }

func servers() map[string]config.MCPServer {
	return map[string]config.MCPServer{
		"docs": {Command: "docs", ReadOnly: true},
		"gh":   {Command: "gh", ReadOnlyTools: []string{"list_issues"}},
		"evil": {Command: "evil", ReadOnly: true, Project: "/repo/.agent/config.json"},
	}
}

func names(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

// TestOffer: plan mode offers the read-only built-ins, bash (with a note),
// call_tool and the MCP tools the user file marked read-only; nothing
// that writes, and no tool a project file vouched for.
func TestOffer(t *testing.T) {
	all := tools.NewRegistry().With(fakeTool{"docs__search"}, fakeTool{"gh__list_issues"}, fakeTool{"gh__create_issue"},
		fakeTool{"evil__wipe"}, fakeTool{toolsearch.ProxyName}).Tools()
	m := New(false, servers())
	if got := m.Offer(all); len(got) != len(all) {
		t.Fatalf("the default mode offers %v", names(got))
	}
	m.Set(true)
	got := m.Offer(all)
	// bash_output reads what a background process printed: read-only;
	// bash_kill is not.
	want := []string{"bash", "read", "grep", "glob", "ls", "bash_output", "docs__search", "gh__list_issues", toolsearch.ProxyName}
	if !slices.Equal(names(got), want) {
		t.Fatalf("plan mode offers %v, want %v", names(got), want)
	}
	if !strings.Contains(got[0].Description(), "Plan mode is on") {
		t.Errorf("bash's description in plan mode: %q", got[0].Description())
	}
	extra := all[slices.IndexFunc(all, func(t tools.Tool) bool { return t.Name() == "docs__search" }):]
	src := names(Source(m, fixed(extra)).Tools())
	if !slices.Equal(src, []string{"docs__search", "gh__list_issues"}) {
		t.Errorf("plan mode's extra tools: %v", src)
	}
	if m.Toggle() != Default || len(Source(m, fixed(extra)).Tools()) != 5 {
		t.Errorf("toggled back to the default mode, the extra tools are still filtered")
	}
}

// TestRefusal: every call is judged as it runs: writes, unknown tools,
// call_tool itself and bash lines not proven read-only are refused with
// a message naming plan mode; reads run; the default mode refuses nothing.
func TestRefusal(t *testing.T) {
	reg := tools.NewRegistry().With(fakeTool{"docs__search"}, fakeTool{"gh__create_issue"}, fakeTool{toolsearch.ProxyName},
		safeTool{fakeTool{"todo_write"}})
	m := New(true, servers())
	for _, tc := range []struct {
		name, input string
		refused     bool
	}{
		{"read", `{"path":"a"}`, false},
		{"ls", `{}`, false},
		{"write", `{"path":"a","content":"x"}`, true},
		{"edit", `{"path":"a","old_string":"x","new_string":"y"}`, true},
		{"bash", `{"command":"git log -3"}`, false},
		{"bash", `{"command":"touch x"}`, true},
		{"bash", `{"command":"echo > x"}`, true},
		{"bash", `not json`, true},
		{"docs__search", `{}`, false},
		{"gh__create_issue", `{}`, true},
		{"nosuch", `{}`, true},
		{toolsearch.ProxyName, `{}`, true},
		{"todo_write", `{}`, false},
	} {
		why := m.Refusal(reg, tools.Call{Name: tc.name, Input: json.RawMessage(tc.input)})
		if (why != "") != tc.refused {
			t.Errorf("%s %s: refusal %q, want refused=%v", tc.name, tc.input, why, tc.refused)
		}
		if why != "" && !strings.Contains(why, "plan mode is on") {
			t.Errorf("%s: refusal %q does not name plan mode", tc.name, why)
		}
		if why := New(false, nil).Refusal(reg, tools.Call{Name: tc.name, Input: json.RawMessage(tc.input)}); why != "" {
			t.Errorf("default mode refused %s: %s", tc.name, why)
		}
	}
	var none *Mode
	if none.On() || none.Name() != Default || none.Refusal(reg, tools.Call{Name: "write"}) != "" {
		t.Errorf("a nil Mode is not the default mode")
	}
}
