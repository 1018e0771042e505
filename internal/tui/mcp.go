package tui

// The MCP servers in the chat: /context's row per server.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// mcpContextLines are /context's rows for the MCP servers: the tokens of
// each one's tool schemas (part of "tool schemas" above; a tool whose
// schema alone is over toolsearch.ToolLimit is never sent, and is named
// under its server instead), then a line naming the servers that offer
// nothing and why.
func (m *Model) mcpContextLines(pct func(int64) string) []string {
	var lines, idle []string
	var limit int64 // of one tool: a tool over it is never sent
	if cfg := m.opt.Loop.Config; cfg != nil {
		limit = toolsearch.ToolLimit(m.snap.Window, cfg.ToolSearchThreshold)
	}
	for _, st := range m.opt.MCP.Status() {
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
			m.th.dim.Render(fmt.Sprintf("  %d tools", len(st.Tools))))
		if len(large) > 0 {
			lines = append(lines, m.th.dim.Render(fmt.Sprintf("    too large, never sent (over %s tokens each): %s", commas(limit), termsafe.Strip(strings.Join(large, ", ")))))
		}
	}
	if len(idle) > 0 {
		lines = append(lines, m.th.dim.Render("  mcp: "+strings.Join(idle, ", ")+" (agent mcp list says more)"))
	}
	return lines
}
