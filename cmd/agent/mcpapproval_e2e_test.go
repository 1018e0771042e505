package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ETUIApprovesAProjectMCPServer: the chat asks about the server the
// project file declares, showing what it runs; approving starts it in the
// running chat (its tool is offered and runs) and is recorded as `agent
// mcp approve` records it.
func TestE2ETUIApprovesAProjectMCPServer(t *testing.T) {
	e := newEnv(t,
		pt.Text("hello"),
		pt.ToolCalls(pt.Call{ID: "call_mcp", Name: "theirs__echo", Args: `{"text":"from the project server"}`}),
		pt.Text("echoed"),
	)
	spec := mcptest.Stdio(t, nil)
	spec.Args = []string{"-test.run=^$"}
	b, err := json.Marshal(map[string]any{"mcp": map[string]config.MCPServer{"theirs": spec}})
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(e.work, ".agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, b, 0o644); err != nil {
		t.Fatal(err)
	}

	s := startTUI(t, e)
	screen := s.waitText("tab answers here")
	for _, want := range []string{"declares the MCP server theirs", spec.Command + " -test.run=^$", mcptest.EnvServe, "approve and start"} {
		if !strings.Contains(strings.Join(strings.Fields(screen), " "), want) {
			t.Errorf("the question lacks %q:\n%s", want, screen)
		}
	}
	s.keys("M-a")
	s.waitText("theirs approved")

	s.send("hi")
	s.waitText("hello")
	s.idle()
	// The server connects in the background: /context lists its tools
	// once they are offered.
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.send("/context")
		screen := s.waitText("Total ")
		s.keys("Escape")
		if strings.Contains(screen, "mcp theirs") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's tools never joined:\n%s", screen)
		}
		s.waitFor("the overlay to close", func(screen string) bool { return !strings.Contains(screen, "Total ") })
		time.Sleep(200 * time.Millisecond)
	}
	s.send("use the server")
	s.waitText("tab answers here")
	s.keys("M-a")
	s.waitText("echoed")

	reqs := e.srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[1].Chat.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Contains(offered, "theirs__echo") {
		t.Errorf("the request after the approval offers %v", offered)
	}
	if !strings.Contains(string(reqs[2].Body), "from the project server") {
		t.Errorf("the model was not sent the server's result")
	}
	var rows []mcpRow
	if res := e.run("", "mcp", "list", "--json"); res.code != 0 || json.Unmarshal([]byte(res.stdout), &rows) != nil {
		t.Fatalf("mcp list: %d %q %s", res.code, res.stdout, res.stderr)
	}
	if len(rows) != 1 || rows[0].Status != "connected" {
		t.Errorf("after the chat's approval: %+v", rows)
	}
}
