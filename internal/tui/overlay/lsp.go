package overlay

// The /lsp drawer: the session's language servers (internal/lsp), each
// with its state, files checked, restarts and last error, and r to let a
// server that stopped for good start again at the next edit. The chat
// passes the servers' status in as it stands with each Update and View;
// the restart runs off the Update loop and comes back as an
// LSPRestartedMsg.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// LSPRestartedMsg says Restart of the server Name revived N of its roots.
type LSPRestartedMsg struct {
	Name string
	N    int
	Err  error
}

// LSPDrawer lists the language servers.
type LSPDrawer struct{ sel int }

// NewLSPDrawer opens on the first server.
func NewLSPDrawer() *LSPDrawer { return &LSPDrawer{} }

// Update acts on the servers s, whose status is rows.
func (d *LSPDrawer) Update(h Host, s *lsp.Servers, rows []lsp.Status, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	d.sel = min(max(d.sel, 0), max(len(rows)-1, 0))
	switch k.String() {
	case "esc", "q", "enter":
		return Close, nil
	case "up":
		d.sel = max(d.sel-1, 0)
	case "down":
		d.sel = min(d.sel+1, max(len(rows)-1, 0))
	case "r":
		if len(rows) > 0 && rows[d.sel].State == "failed" {
			name := rows[d.sel].Name
			return Keep, func() tea.Msg {
				n, err := s.Restart(name)
				return LSPRestartedMsg{Name: name, N: n, Err: err}
			}
		}
	default:
		return Pass, nil
	}
	return Keep, nil
}

// View shows rows, the servers as they stand.
func (d *LSPDrawer) View(h Host, rows []lsp.Status, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	d.sel = min(max(d.sel, 0), max(len(rows)-1, 0))
	var body []string
	for i, r := range rows {
		line := fmt.Sprintf("%s  %s  %s", r.Name, r.State, r.Command)
		if len(r.Extensions) > 0 {
			line += " (" + strings.Join(r.Extensions, " ") + ")"
		}
		line = theme.OneLine(termsafe.Strip(line), inner-2)
		if i == d.sel {
			line = th.AccentText.Render("› " + line)
		} else {
			line = "  " + line
		}
		body = append(body, line)
		facts := fmt.Sprintf("%d files checked · %d restarts", r.Files, r.Restarts)
		if r.LastError != "" {
			facts += " · " + r.LastError
		}
		body = append(body, "    "+th.Dim.Render(theme.OneLine(termsafe.Strip(facts), inner-4)))
	}
	return theme.Frame(th, "Language servers", theme.ClampBody(body, height, 2*d.sel+1), "↑↓ select · r restart a failed server · esc", width)
}
