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

// TestContextFlagsATooLargeMCPTool: a tool whose schema alone is over the
// limit of one tool is named under its server in /context, never sent,
// and left out of the server's tokens.
func TestContextFlagsATooLargeMCPTool(t *testing.T) {
	srv := mcptest.HTTPHuge(t, 200) // ≈ 50K tokens, over 10,000
	servers := mcp.Start(context.Background(), map[string]config.MCPServer{"web": {URL: srv.URL}}, mcp.Options{Dir: t.TempDir()})
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
	if req := h.srv.Requests()[0]; strings.Contains(string(req.Body), "web__huge_report") {
		t.Error("the request carries the too-large tool")
	}
	h.typeText("/context")
	h.key("enter")
	h.waitFor("the MCP rows", func(m *Model) bool { return strings.Contains(screenOf(m), "mcp web") })
	s := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(s, "too large, never sent (over 10,000 tokens each): web__huge_report") {
		t.Errorf("/context:\n%s", h.screen())
	}
}
