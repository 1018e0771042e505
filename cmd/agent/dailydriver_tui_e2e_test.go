package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lastmodel"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// On a local server with no model configured, the model picker never
// loops: choosing the model it marks current sends the message, /new
// then Enter sends without asking again, and the choice is remembered.
func TestE2ETUIModelPickerNeverLoops(t *testing.T) {
	e := newEnv(t, pt.Text("first answer"), pt.Text("second answer"))
	e.without("AGENT_MODEL")
	// The server serves the default model, which the picker marks current.
	current := config.DefaultModel
	e.srv.SetModels(current, "llama3.1")
	s := startTUI(t, e)
	s.waitText("llama3.1")
	s.keys("Escape")
	s.waitFor("the picker to close", func(screen string) bool { return !strings.Contains(screen, "Pick a model") })
	s.send("hi")
	s.waitText("llama3.1")
	s.typeText(current)
	s.keys("Enter")
	s.waitText("first answer")
	s.idle()
	s.send("/new")
	s.send("more")
	s.waitText("second answer")
	if screen := s.screen(); strings.Contains(screen, "Pick a model") {
		t.Errorf("the picker reopened after /new:\n%s", screen)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || reqs[0].Chat.Model != current || reqs[1].Chat.Model != current {
		for _, r := range reqs {
			t.Logf("request model %s: %.300s", r.Chat.Model, r.Body)
		}
		t.Fatalf("%d requests; want two for %s", len(reqs), current)
	}
	work, _ := filepath.EvalSymlinks(e.work)
	if m, scope := lastmodel.Lookup(e.data, work, e.srv.URL); m != current || scope != lastmodel.Project {
		t.Errorf("remembered %q (%s), want %s for the project", m, scope, current)
	}
}

// A server that fails leaves one notice line in the chat; /mcp shows the
// servers with their status, tools and last error.
func TestE2ETUIFailingMCPServerIsTold(t *testing.T) {
	e := newEnv(t)
	servers := map[string]config.MCPServer{
		"bad":  {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"good": mcptest.Stdio(t, nil),
	}
	b, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	e.writeUserConfig(`{"mcp": ` + string(b) + `}`)
	s := startTUI(t, e)
	screen := s.waitText("MCP server bad failed")
	if strings.Count(screen, "MCP server bad failed") != 1 || strings.Contains(screen, "MCP server good") {
		t.Errorf("want one notice, of bad only:\n%s", screen)
	}
	s.send("/mcp")
	s.waitText("last error")
	s.waitText("good__echo")
	s.keys("Escape")
}
