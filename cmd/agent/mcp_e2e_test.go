package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// mcpConfig is a config declaring this test binary as the stdio MCP
// server of each name, with extra top-level fields.
func mcpConfig(t *testing.T, names []string, extra string) string {
	t.Helper()
	servers := map[string]config.MCPServer{}
	for _, n := range names {
		servers[n] = mcptest.Stdio(t, nil)
	}
	b, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcp": ` + string(b)
	if extra != "" {
		cfg += ", " + extra
	}
	return cfg + "}"
}

// TestE2EMCPToolCall: agent run offers the configured server's tools in
// its first request, runs the model's call through the server when the
// config allows it, and refuses it (nothing run, the model told how to
// allow it) when nothing does; agent context counts the server's schemas.
func TestE2EMCPToolCall(t *testing.T) {
	e := newEnv(t,
		pt.ToolCalls(pt.Call{ID: "call_mcp", Name: "t__echo", Args: `{"text":"hello from the server"}`}),
		pt.Text("Done."),
	)
	e.writeUserConfig(mcpConfig(t, []string{"t"}, `"permissions": {"t": "allow"}`))
	res := e.run("", "run", "--format", "json", "use the server")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[0].Chat.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Contains(offered, "t__echo") || !slices.Contains(offered, "bash") {
		t.Fatalf("first request's tools: %v", offered)
	}
	r := toolResults(t, res.stdout)["call_mcp"]
	if r["is_error"] != false || r["output"] != "hello from the server" {
		t.Fatalf("result %v", r)
	}
	if !strings.Contains(string(reqs[1].Body), "hello from the server") {
		t.Errorf("the model was not sent the result")
	}

	ctxRes := e.run("", "context", "--json")
	var snap struct {
		Breakdown struct {
			Tools int64 `json:"tools"`
			MCP   []struct {
				Server string `json:"server"`
				Tools  int    `json:"tools"`
				Tokens int64  `json:"tokens"`
			} `json:"mcp"`
		} `json:"breakdown"`
	}
	if err := json.Unmarshal([]byte(ctxRes.stdout), &snap); err != nil {
		t.Fatalf("context --json: %v %q %s", err, ctxRes.stdout, ctxRes.stderr)
	}
	if m := snap.Breakdown.MCP; len(m) != 1 || m[0].Server != "t" || m[0].Tools != len(mcptest.ToolNames)+1 || m[0].Tokens <= 0 || snap.Breakdown.Tools <= m[0].Tokens {
		t.Errorf("breakdown %+v", snap.Breakdown)
	}

	// Nothing allows it: denied in a headless run without --yes.
	e.srv.Add(pt.ToolCalls(pt.Call{ID: "call_denied", Name: "t__echo", Args: `{"text":"x"}`}), pt.Text("Fine."))
	e.writeUserConfig(mcpConfig(t, []string{"t"}, ""))
	res = e.run("", "run", "--format", "json", "again")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	r = toolResults(t, res.stdout)["call_denied"]
	out, _ := r["output"].(string)
	if r["is_error"] != true || !strings.Contains(out, "permission denied") || !strings.Contains(out, `"t__echo": "allow"`) {
		t.Errorf("unapproved call: %v", r)
	}
}

// TestE2EMCPListAndApprove: agent mcp list shows each server's status,
// tools and tokens; a project's server waits for agent mcp approve, and
// an approval covers the entry as it was.
func TestE2EMCPListAndApprove(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(mcpConfig(t, []string{"mine"}, ""))
	project := filepath.Join(e.work, ".agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	writeProject := func(cfg string) {
		if err := os.WriteFile(project, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeProject(mcpConfig(t, []string{"theirs"}, ""))

	list := func() map[string]mcpRow {
		t.Helper()
		res := e.run("", "mcp", "list", "--json")
		var rows []mcpRow
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &rows) != nil {
			t.Fatalf("mcp list --json: exit %d %q %s", res.code, res.stdout, res.stderr)
		}
		byName := map[string]mcpRow{}
		for _, r := range rows {
			byName[r.Name] = r
		}
		return byName
	}
	rows := list()
	if r := rows["mine"]; r.Status != "connected" || r.Kind != "stdio" || r.Tools != len(mcptest.ToolNames)+1 || r.Tokens <= 0 || !slices.Contains(r.Names, "mine__echo") {
		t.Errorf("mine: %+v", r)
	}
	if r := rows["theirs"]; r.Status != "needs approval" || r.Tools != 0 || r.Project == "" {
		t.Errorf("theirs: %+v", r)
	}
	text := e.run("", "mcp", "list")
	if !strings.Contains(text.stdout, "NAME") || !strings.Contains(text.stdout, "agent mcp approve theirs") {
		t.Errorf("mcp list:\n%s", text.stdout)
	}

	if res := e.run("", "mcp", "approve", "theirs"); res.code != 0 || !strings.Contains(res.stdout, "approved theirs") {
		t.Fatalf("approve: %d %q %s", res.code, res.stdout, res.stderr)
	}
	if r := list()["theirs"]; r.Status != "connected" {
		t.Errorf("after approval: %+v", r)
	}
	// A changed entry needs approving again.
	changed := mcptest.Stdio(t, nil)
	changed.Args = []string{"-test.run=^$"}
	b, _ := json.Marshal(map[string]any{"mcp": map[string]any{"theirs": changed}})
	writeProject(string(b))
	if r := list()["theirs"]; r.Status != "needs approval" {
		t.Errorf("after the entry changed: %+v", r)
	}
	// A headless run says so on stderr, and runs without it.
	e.srv.Add(pt.Text("ok"))
	if res := e.run("", "run", "hi"); res.code != 0 || !strings.Contains(res.stderr, "agent mcp approve theirs") {
		t.Errorf("run with an unapproved server: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := e.run("", "mcp", "approve", "nope"); res.code == 0 || !strings.Contains(res.stderr, `no MCP server "nope"`) {
		t.Errorf("approve nope: %d %s", res.code, res.stderr)
	}
}

// TestE2EMCPListShowsNoEscapes: a server's name and its failure (a command
// that prints escape sequences to stderr and exits) reach the terminal
// without a raw escape.
func TestE2EMCPListShowsNoEscapes(t *testing.T) {
	e := newEnv(t)
	e.writeUserConfig(`{"mcp": {"evil\u001b[2Jname": {"command": "sh", "args": ["-c", "printf '\\033]0;pwned\\007\\033[31mboom' >&2; exit 3"], "startup_timeout_s": 5}}}`)
	res := e.run("", "mcp", "list")
	if strings.ContainsRune(res.stdout, '\x1b') || strings.ContainsRune(res.stderr, '\x1b') || strings.ContainsRune(res.stdout, '\a') {
		t.Fatalf("raw escapes in the output:\nstdout %q\nstderr %q", res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "evil") || !strings.Contains(res.stdout, "failed") {
		t.Fatalf("mcp list = %q (stderr %q)", res.stdout, res.stderr)
	}
}
