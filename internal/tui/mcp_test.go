package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestContextShowsMCPServers: /context has a row per MCP server whose
// tools are offered (the tokens of their schemas) and names the others.
func TestContextShowsMCPServers(t *testing.T) {
	srv := mcptest.HTTP(t, "")
	servers := mcp.Start(context.Background(), map[string]config.MCPServer{
		"web": {URL: srv.URL},
		"off": {Command: "unused", Disabled: true},
	}, mcp.Options{Dir: t.TempDir()})
	defer servers.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, []pt.Step{pt.Text("hello")}, func(o *Options) {
		o.MCP = servers
		o.Loop.Extra = servers
	})
	h.typeText("hi")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "hello") })
	h.typeText("/context")
	h.key("enter")
	h.waitFor("the MCP rows", func(m *Model) bool { return strings.Contains(screenOf(m), "mcp web") })
	s := h.screen()
	if !strings.Contains(s, fmt.Sprintf("%d tools", len(mcptest.ToolNames))) || !strings.Contains(s, "mcp: off disabled") {
		t.Errorf("/context:\n%s", s)
	}
}
