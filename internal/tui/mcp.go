package tui

// The MCP servers in the chat: /context's row per server.

import (
	"fmt"
	"strings"
)

// mcpContextLines are /context's rows for the MCP servers: the tokens of
// each one's tool schemas (part of "tool schemas" above), then a line
// naming the servers that offer nothing and why.
func (m *Model) mcpContextLines(pct func(int64) string) []string {
	var lines, idle []string
	for _, st := range m.opt.MCP.Status() {
		if len(st.Tools) == 0 {
			idle = append(idle, st.Name+" "+string(st.State))
			continue
		}
		label := " mcp " + st.Name
		if r := []rune(label); len(r) > 15 {
			label = string(r[:14]) + "…"
		}
		lines = append(lines, "  "+fmt.Sprintf("%-15s %11s  %6s", label, commas(st.Tokens), pct(st.Tokens))+
			m.th.dim.Render(fmt.Sprintf("  %d tools", len(st.Tools))))
	}
	if len(idle) > 0 {
		lines = append(lines, m.th.dim.Render("  mcp: "+strings.Join(idle, ", ")+" (agent mcp list says more)"))
	}
	return lines
}
