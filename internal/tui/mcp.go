package tui

// The MCP servers in the chat: /context's row per server.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// mcpContextLines are /context's rows for the MCP servers: the tokens of
// each one's tool schemas (part of "tool schemas" above; a tool whose
// schema alone is over toolsearch.ToolLimit is never sent, and is named
// under its server instead), then a line naming the servers that offer
// nothing and why.
// The servers are servers, cfg the chat's configuration, window the
// context window.
func mcpContextLines(th *theme, servers *mcp.Servers, cfg *config.Config, window int64, pct func(int64) string) []string {
	var lines, idle []string
	var limit int64 // of one tool: a tool over it is never sent
	if cfg != nil {
		limit = toolsearch.ToolLimit(window, cfg.ToolSearchThreshold)
	}
	for _, st := range servers.Status() {
		if len(st.Tools) == 0 {
			idle = append(idle, st.Name+" "+string(st.State))
			continue
		}
		label := " mcp " + st.Name
		if r := []rune(label); len(r) > 15 {
			label = string(r[:14]) + "…"
		}
		large, sent := st.Over(limit)
		lines = append(lines, "  "+fmt.Sprintf("%-15s %11s  %6s", label, commas(sent), pct(sent))+
			th.Dim.Render(fmt.Sprintf("  %d tools", len(st.Tools))))
		if len(large) > 0 {
			lines = append(lines, th.Dim.Render(fmt.Sprintf("    too large, never sent (over %s tokens each): %s", commas(limit), termsafe.Strip(strings.Join(large, ", ")))))
		}
	}
	if len(idle) > 0 {
		lines = append(lines, th.Dim.Render("  mcp: "+strings.Join(idle, ", ")+" (agent mcp list says more)"))
	}
	return lines
}
