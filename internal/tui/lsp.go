package tui

// lsp.go: /lsp, the session's language servers (internal/lsp): the
// drawer of overlay/lsp.go when the session has servers, else a notice
// of what is configured.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// lspCommand is /lsp: the drawer when the session has servers, else
// the notice.
func lspCommand(s *lsp.Servers, c *config.Config) (drawer, *noticeItem) {
	if s == nil {
		return nil, lspNotice(c)
	}
	rows := s.Status()
	return lspDrawer{overlay.NewLSPDrawer(), &rows}, nil
}

// lspDrawer puts overlay.LSPDrawer in the chat's drawer slot. rows are
// the servers' status as of the drawer's last update (its opening, a
// key): a frame draws them without looking commands up on PATH again.
type lspDrawer struct {
	*overlay.LSPDrawer
	rows *[]lsp.Status
}

func (d lspDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	s := m.opt.Loop.LSP
	*d.rows = s.Status()
	res, cmd := d.Update(chatHost{m}, s, *d.rows, msg)
	if cmd == nil {
		return res, nil
	}
	return res, func() tea.Msg { return lspRestarted(cmd().(overlay.LSPRestartedMsg)) }
}

func (d lspDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, *d.rows, width, height)
}

// lspRestarted is overlay.LSPRestartedMsg applied to the chat: a notice.
type lspRestarted overlay.LSPRestartedMsg

func (r lspRestarted) apply(m *Model) tea.Cmd {
	switch {
	case r.Err != nil:
		m.chat.notice(noticeError, "restart "+r.Name+": "+r.Err.Error(), "")
	case r.N == 0:
		m.chat.notice(noticeInfo, r.Name+" had not stopped: nothing to restart", "")
	default:
		m.chat.notice(noticeInfo, r.Name+" starts again at the next edit of one of its files", "")
	}
	return nil
}

// lspNotice is /lsp's notice when the session runs no server: those the
// config c declares (a session with servers gets the drawer).
func lspNotice(c *config.Config) *noticeItem {
	var rows []lsp.Status
	if c != nil {
		rows = lsp.Configured(c.LSP)
	}
	if len(rows) == 0 {
		return &noticeItem{kind: noticeInfo, text: `no language server is configured: add "lsp": {"go": {"command": "gopls"}} to your config for diagnostics after each edit`}
	}
	var b strings.Builder
	b.WriteString("language servers:")
	for _, r := range rows {
		fmt.Fprintf(&b, "\n  %s (%s, %s): %s", r.Name, r.Command, strings.Join(r.Extensions, " "), r.State)
		if r.Files > 0 {
			fmt.Fprintf(&b, ", %d files", r.Files)
		}
		if r.Restarts > 0 {
			fmt.Fprintf(&b, ", restarted %d times", r.Restarts)
		}
		if r.LastError != "" {
			b.WriteString(" — " + r.LastError)
		}
	}
	return &noticeItem{kind: noticeInfo, text: termsafe.Strip(b.String())}
}
