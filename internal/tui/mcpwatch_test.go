package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
)

// A server that fails to start leaves one warning line in the chat,
// which keeps going; /mcp lists each server's status, tools and last
// error, and Enter restarts the one selected.
func TestFailingMCPServerIsToldAndRestartable(t *testing.T) {
	web := mcptest.HTTP(t, "")
	missing := filepath.Join(t.TempDir(), "no-such-server")
	servers := mcp.Start(context.Background(), map[string]config.MCPServer{
		"bad": {Command: missing},
		"web": {URL: web.URL},
	}, mcp.Options{Dir: t.TempDir()})
	defer servers.Close()
	h := newHarness(t, nil, func(o *Options) {
		o.MCP = servers
		o.Loop.Extra = servers
	})
	h.waitScreen("MCP server bad failed")
	if n := strings.Count(h.screen(), "MCP server bad failed"); n != 1 {
		t.Errorf("%d notices of the failure, want one:\n%s", n, h.screen())
	}
	if strings.Contains(h.screen(), "MCP server web") {
		t.Errorf("a connected server is reported:\n%s", h.screen())
	}

	// The web server may still be connecting when the bad one's failure
	// shows: the open panel follows it as it connects.
	h.typeText("/mcp")
	h.key("enter")
	h.waitScreen("last error")
	h.waitScreen("web__echo")
	s := h.screen()
	for _, want := range []string{"bad", "failed", "web", "connected", "web__echo", "no-such-server"} {
		if !strings.Contains(s, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, s)
		}
	}
	h.key("enter") // the first entry: bad
	h.waitScreen("MCP server bad: restarting")
	h.waitFor("the restart to fail again", func(m *Model) bool {
		return strings.Count(screenOf(m), "MCP server bad failed") == 2
	})
}
