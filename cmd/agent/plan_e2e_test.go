package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EPlanModeChangesNothing is issue 30's "Done when": a scripted
// model in plan mode (agent run --plan, with --yes: approvals do not
// matter) tries every path that could change a file — write, edit, bash
// touch, rm, a redirection and sed -i, an MCP tool not marked read-only,
// call_tool naming a write tool after tool_search, and a task whose
// subagent calls write — and every attempt is refused with a tool error
// naming plan mode, while the read-only calls (cat, an MCP tool the user
// marked read-only) run. The working tree ends byte-identical. Then
// agent run -c --execute leaves plan mode and sends the plan as the next
// message, with write offered again.
func TestE2EPlanModeChangesNothing(t *testing.T) {
	const planText = "1. Rename a.txt's greeting. 2. Add a test."
	e := newEnv(t,
		pt.ToolCalls(
			pt.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"x"}`},
			pt.Call{ID: "e", Name: "edit", Args: `{"path":"a.txt","old_string":"hello","new_string":"bye"}`},
			pt.Call{ID: "touch", Name: "bash", Args: `{"command":"touch made.txt"}`},
			pt.Call{ID: "rm", Name: "bash", Args: `{"command":"rm a.txt"}`},
			pt.Call{ID: "redir", Name: "bash", Args: `{"command":"echo bye > a.txt"}`},
			pt.Call{ID: "sed", Name: "bash", Args: `{"command":"sed -i s/hello/bye/ a.txt"}`},
			pt.Call{ID: "mcp", Name: "srv__echo", Args: `{"text":"hi"}`},
			pt.Call{ID: "cat", Name: "bash", Args: `{"command":"cat a.txt"}`},
		),
		pt.ToolCalls(pt.Call{ID: "search", Name: "tool_search", Args: `{"query":"echo text pwd"}`}),
		pt.ToolCalls(
			pt.Call{ID: "proxy_write", Name: "call_tool", Args: `{"name":"write","arguments":{"path":"p.txt","content":"x"}}`},
			pt.Call{ID: "proxy_echo", Name: "call_tool", Args: `{"name":"srv__echo","arguments":{"text":"hi"}}`},
			pt.Call{ID: "proxy_pwd", Name: "call_tool", Args: `{"name":"srv__pwd","arguments":{}}`},
		),
		pt.ToolCalls(pt.Call{ID: "task", Name: "task", Args: `{"description":"write a file","prompt":"write child.txt"}`}),
		pt.ToolCalls(pt.Call{ID: "child_write", Name: "write", Args: `{"path":"child.txt","content":"x"}`}), // the subagent
		pt.Text("I could not write."), // the subagent's answer
		pt.Text(planText),
		pt.Text("Done as planned."), // agent run -c --execute
	)
	if err := os.WriteFile(filepath.Join(e.work, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := mcptest.Stdio(t, nil)
	spec.Args = []string{"-test.run=^$"}
	spec.ReadOnlyTools = []string{"pwd"}
	b, err := json.Marshal(map[string]any{"mcp": map[string]config.MCPServer{"srv": spec}, "tool_search_threshold": 0})
	if err != nil {
		t.Fatal(err)
	}
	e.writeUserConfig(string(b))
	before := treeOf(t, e.work)

	run := e.run("", "run", "--plan", "--yes", "--wait-mcp", "--format", "json", "plan the rename")
	if run.code != 0 {
		t.Fatalf("plan run: %d %s", run.code, run.stderr)
	}
	results := toolResults(t, run.stdout)
	for _, id := range []string{"w", "e", "touch", "rm", "redir", "sed", "mcp", "proxy_write", "proxy_echo"} {
		r := results[id]
		if r["is_error"] != true || !strings.Contains(fmt.Sprint(r["output"]), "Refused: plan mode is on") {
			t.Errorf("%s: %v, want a refusal naming plan mode", id, r)
		}
	}
	if r := results["cat"]; r["is_error"] != false || !strings.Contains(fmt.Sprint(r["output"]), "hello") {
		t.Errorf("cat a.txt in plan mode: %v, want it to run", r)
	}
	if r := results["proxy_pwd"]; r["is_error"] != false {
		t.Errorf("srv__pwd (marked read-only) in plan mode: %v, want it to run", r)
	}
	if s := fmt.Sprint(results["search"]["output"]); strings.Contains(s, "srv__echo") {
		t.Errorf("tool_search found a tool plan mode refuses: %s", s)
	}
	if r := results["task"]; !strings.Contains(fmt.Sprint(r["output"]), "I could not write") {
		t.Errorf("task: %v", r)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests in the plan run, want 7", len(reqs))
	}
	child := string(reqs[5].Body) // the subagent's second request carries its refused write
	if !strings.Contains(child, "Refused: plan mode is on, so write did not run") {
		t.Errorf("the subagent's write was not refused by plan mode: %s", child)
	}
	for i, r := range reqs {
		tools := toolsArray(t, r.Body)
		if strings.Contains(tools, `"name":"write"`) || strings.Contains(tools, `"name":"edit"`) || strings.Contains(tools, `"name":"srv__echo"`) {
			t.Errorf("request %d offers a tool that writes in plan mode: %s", i, tools)
		}
	}
	if !strings.Contains(toolsArray(t, reqs[0].Body), "Plan mode is on") {
		t.Errorf("bash's description does not say plan mode is on")
	}
	var plans []string
	for _, ev := range jsonEvents(t, run.stdout) {
		if ev["type"] == "plan" {
			plans = append(plans, fmt.Sprint(ev["text"]))
		}
	}
	if len(plans) != 1 || plans[0] != planText {
		t.Errorf("plan events %q, want one with the plan", plans)
	}
	if after := treeOf(t, e.work); after != before {
		t.Fatalf("the working tree changed in plan mode:\nbefore %s\nafter  %s", before, after)
	}

	exec := e.run("", "run", "-c", "--execute", "--format", "json")
	if exec.code != 0 {
		t.Fatalf("execute run: %d %s", exec.code, exec.stderr)
	}
	reqs = e.srv.Requests()
	last := reqs[len(reqs)-1]
	msgs := last.Chat.Messages
	if got := msgs[len(msgs)-1].Content; msgs[len(msgs)-1].Role != "user" || !strings.Contains(got, planText) || !strings.Contains(got, "approved") {
		t.Errorf("--execute's message: %q, want the plan", got)
	}
	if !strings.Contains(toolsArray(t, last.Body), `"name":"write"`) {
		t.Errorf("--execute still in plan mode: write is not offered")
	}
}

// TestE2EExecuteWithoutPlan: --execute on a session with no plan, or
// without a session, is bad usage (exit 2) and sends nothing.
func TestE2EExecuteWithoutPlan(t *testing.T) {
	e := newEnv(t, pt.Text("hi"))
	if r := e.run("", "run", "--execute"); r.code != 2 || !strings.Contains(r.stderr, "-c or --session") {
		t.Errorf("--execute alone: %d %s", r.code, r.stderr)
	}
	if r := e.run("", "run", "--plan", "--execute", "-c"); r.code != 2 {
		t.Errorf("--plan --execute: %d %s", r.code, r.stderr)
	}
	if r := e.run("", "run", "hello"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	if r := e.run("", "run", "-c", "--execute"); r.code != 2 || !strings.Contains(r.stderr, "has no plan") {
		t.Errorf("--execute with no plan: %d %s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// treeOf is every file under dir with its mode and content, as one string.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", path, info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
