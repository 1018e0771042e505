package tui

// lsp.go: /lsp, the session's language servers (internal/lsp) as a
// notice: each with its state, restarts, files checked and last error.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/termsafe"
)

// lspNotice is /lsp's notice for the servers s of the config c.
func lspNotice(s *lsp.Servers, c *config.Config) *noticeItem {
	rows := s.Status()
	if s == nil && c != nil {
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
