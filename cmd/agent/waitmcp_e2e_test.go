package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// slowMCPConfig declares stdio test servers that each take delayMS to
// start.
func slowMCPConfig(t *testing.T, delayMS string, names ...string) string {
	t.Helper()
	servers := map[string]config.MCPServer{}
	for _, n := range names {
		servers[n] = mcptest.Stdio(t, map[string]string{mcptest.EnvStartDelayMS: delayMS})
	}
	b, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	return `{"mcp": ` + string(b) + `}`
}

func firstRequestTools(t *testing.T, e *env) []string {
	t.Helper()
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	var names []string
	for _, tl := range reqs[len(reqs)-1].Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// agent run waits for its configured MCP servers, started in parallel,
// before the first request, without a flag: two servers that each take
// 800 ms to start both have their tools in the first request, and the run
// takes far less than the two delays one after the other.
// --no-wait-mcp opts out; --wait-mcp is still accepted.
func TestE2ERunWaitsForSlowMCPServers(t *testing.T) {
	e := newEnv(t, pt.Text("ok"))
	e.writeUserConfig(slowMCPConfig(t, "800", "a", "b"))
	start := time.Now()
	res := e.run("", "run", "hi")
	took := time.Since(start)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	tools := firstRequestTools(t, e)
	if !slices.Contains(tools, "a__echo") || !slices.Contains(tools, "b__echo") {
		t.Fatalf("the first request's tools lack the slow servers': %v", tools)
	}
	if took > 1600*time.Millisecond+1200*time.Millisecond {
		t.Errorf("run took %v: the servers were not waited for in parallel", took)
	}
	t.Logf("run with two 800 ms servers took %v", took)

	e.srv.Add(pt.Text("ok"))
	e.writeUserConfig(slowMCPConfig(t, "3000", "a"))
	if res := e.run("", "run", "--no-wait-mcp", "hi"); res.code != 0 {
		t.Fatalf("--no-wait-mcp: exit %d: %s", res.code, res.stderr)
	}
	if tools := firstRequestTools(t, e); slices.Contains(tools, "a__echo") {
		t.Errorf("--no-wait-mcp waited for the server: %v", tools)
	}

	e.srv.Add(pt.Text("ok"))
	e.writeUserConfig(slowMCPConfig(t, "300", "a"))
	if res := e.run("", "run", "--wait-mcp", "hi"); res.code != 0 {
		t.Fatalf("--wait-mcp: exit %d: %s", res.code, res.stderr)
	}
	if tools := firstRequestTools(t, e); !slices.Contains(tools, "a__echo") {
		t.Errorf("--wait-mcp: %v", tools)
	}
}

// agent mcp list --verbose names each server's tools in text mode, not
// only their count.
func TestE2EMCPListVerboseNamesTheTools(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(mcpConfig(t, []string{"t"}, ""))
	res := e.run("", "mcp", "list", "--verbose")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"t__echo", "t__dotted_name", "t__pid"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("--verbose does not name %s:\n%s", want, res.stdout)
		}
	}
	if res := e.run("", "mcp", "list"); strings.Contains(res.stdout, "t__echo") {
		t.Errorf("without --verbose the tools are named:\n%s", res.stdout)
	}
}
