package tui

// The MCP servers' health in the chat. The servers keep connecting in the
// background (the chat never waits for them); watchMCP waits for their
// changes (mcp.Servers.Changes, an event, never a poll) and a server that
// fails or crashes for good leaves one warning line in the conversation,
// once per failure, pointing at /mcp. The /mcp panel lists each server's
// status, tools and last error (its reason and the end of its stderr);
// Enter restarts the selected one.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// mcpWatch is what the chat last saw of each server (by name).
type mcpWatch struct {
	seen map[string]mcp.State
}

// mcpChangedMsg says a server's status or tools changed.
type mcpChangedMsg struct {
	servers *mcp.Servers
	done    <-chan struct{}
}

// watchMCP waits for the next change of servers, until done.
func watchMCP(servers *mcp.Servers, done <-chan struct{}) tea.Cmd {
	ch := servers.Changes()
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return mcpChangedMsg{servers: servers, done: done}
		case <-done:
			return nil
		}
	}
}

func (msg mcpChangedMsg) apply(m *Model) tea.Cmd {
	for _, text := range m.mcpAsking.told.failures(msg.servers.Status()) {
		m.chat.notice(noticeWarn, text, "/mcp shows the servers and restarts one.")
	}
	if _, open := m.drawer.(mcpPanelDrawer); open {
		m.drawer = mcpPanel(msg.servers) // the panel shows what is, as it changes
	}
	return watchMCP(msg.servers, msg.done)
}

// failures are the one-line notices of the servers that failed since the
// last look: failed for good, or crashed.
func (w *mcpWatch) failures(status []mcp.Status) []string {
	if w.seen == nil {
		w.seen = map[string]mcp.State{}
	}
	var out []string
	for _, st := range status {
		before := w.seen[st.Name]
		w.seen[st.Name] = st.State
		if st.State == before || (st.State != mcp.StateFailed && st.State != mcp.StateCrashed) {
			continue
		}
		out = append(out, flatLine(fmt.Sprintf("MCP server %s %s: %s", mcp.Printable(st.Name), st.State, st.Reason), 200))
	}
	return out
}

// forget makes the next failure of the server name a new one.
func (w *mcpWatch) forget(name string) { delete(w.seen, name) }

// flatLine is s on one line, safe to show, at most n runes.
func flatLine(s string, n int) string {
	s = strings.Join(strings.Fields(termsafe.Strip(s)), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// mcpPanelDrawer is the /mcp panel in the chat's drawer slot, told apart
// so that a change of the servers draws it again.
type mcpPanelDrawer struct{ drawer }

// mcpPanel is the /mcp panel: a picker of the servers whose choice
// restarts the one chosen.
func mcpPanel(servers *mcp.Servers) drawer {
	var entries []overlay.PickerEntry
	for _, st := range servers.Status() {
		detail := string(st.State)
		if len(st.Tools) > 0 {
			detail += fmt.Sprintf(" · %d tools", len(st.Tools))
		}
		var snippet []string
		if len(st.Tools) > 0 {
			snippet = append(snippet, "tools: "+strings.Join(st.Tools, ", "))
		}
		if st.Reason != "" {
			snippet = append(snippet, "last error: "+st.Reason)
		} else if st.Stderr != "" && st.State != mcp.StateConnected {
			snippet = append(snippet, "stderr: "+st.Stderr)
		}
		entries = append(entries, overlay.PickerEntry{
			Value: st.Name, Label: mcp.Printable(st.Name), Detail: detail,
			Snippet: flatLine(strings.Join(snippet, " · "), 300),
		})
	}
	title := "MCP servers: enter restarts the selected one"
	if len(entries) == 0 {
		title = `No MCP servers: declare them in the config's "mcp" object`
	}
	return mcpPanelDrawer{pickerOn(title, entries, func(m *Model, name string) tea.Cmd {
		if err := servers.Restart(name); err != nil {
			m.chat.notice(noticeError, err.Error(), "")
			return nil
		}
		// Its next failure is news, however quickly it comes.
		m.mcpAsking.told.forget(name)
		m.chat.notice(noticeInfo, "MCP server "+mcp.Printable(name)+": restarting", "its tools join from the next step once it is connected")
		return nil
	})}
}
