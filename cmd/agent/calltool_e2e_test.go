package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ECallToolRunsAFoundToolAsItself: with an MCP server's tools behind
// tool_search (tool_search_threshold 0), a tool the search finds is called
// through call_tool in the next step, and the tools array of every request
// of the run stays byte for byte the same (the provider's cached prefix
// holds). The named tool asks permission as itself: without --yes the
// headless run denies it, naming it, and nothing runs; with --yes it runs.
func TestE2ECallToolRunsAFoundToolAsItself(t *testing.T) {
	script := func() []pt.Step {
		return []pt.Step{
			pt.ToolCalls(pt.Call{ID: "call_search", Name: "tool_search", Args: `{"query":"echo text"}`}),
			pt.ToolCalls(pt.Call{ID: "call_proxy", Name: "call_tool", Args: `{"name":"srv__echo","arguments":{"text":"through the proxy"}}`}),
			pt.Text("Echoed."),
		}
	}
	for _, yes := range []bool{false, true} {
		e := newEnv(t, script()...)
		spec := mcptest.Stdio(t, nil)
		spec.Args = []string{"-test.run=^$"}
		b, err := json.Marshal(map[string]any{"mcp": map[string]config.MCPServer{"srv": spec}, "tool_search_threshold": 0})
		if err != nil {
			t.Fatal(err)
		}
		e.writeUserConfig(string(b))
		args := []string{"run", "--wait-mcp", "--format", "json", "echo it"}
		if yes {
			args = append([]string{"run", "--yes"}, args[1:]...)
		}
		run := e.run("", args...)
		if run.code != 0 {
			t.Fatalf("yes=%v: run: %d %s", yes, run.code, run.stderr)
		}
		results := toolResults(t, run.stdout)
		if s := fmt.Sprint(results["call_search"]["output"]); !strings.Contains(s, "srv__echo") || !strings.Contains(s, "call_tool") {
			t.Fatalf("tool_search's result: %s", s)
		}
		out := fmt.Sprint(results["call_proxy"]["output"])
		switch {
		case yes && (results["call_proxy"]["is_error"] != false || !strings.Contains(out, "through the proxy")):
			t.Errorf("--yes: call_tool's result: %v", results["call_proxy"])
		case !yes && (results["call_proxy"]["is_error"] != true || strings.Contains(out, "through the proxy") || !strings.Contains(out, "srv__echo")):
			t.Errorf("without --yes: call_tool's result %v, want a denial naming srv__echo", results["call_proxy"])
		}
		reqs := e.srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		first := toolsArray(t, reqs[0].Body)
		if !strings.Contains(first, `"call_tool"`) || strings.Contains(first, `"srv__echo"`) {
			t.Errorf("the first request's tools: %s", first)
		}
		for i, r := range reqs[1:] {
			if got := toolsArray(t, r.Body); got != first {
				t.Errorf("request %d's tools array changed mid-run", i+1)
			}
		}
	}
}

func toolsArray(t *testing.T, body []byte) string {
	t.Helper()
	var b struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return string(b.Tools)
}
