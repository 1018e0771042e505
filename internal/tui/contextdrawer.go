package tui

// The /context drawer (overlay.ContextDrawer) in the chat's drawer slot:
// the facts it shows, read off the chat as it draws, and what the
// background commands found (the compaction's preview: control.go; the
// restore's price: restorecost.go).

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/tui/overlay"
	uitheme "github.com/ctxloop/agent/internal/tui/theme"
)

// contextDrawer is /context: near the compaction point what the
// compaction will do (preview, filled in by contextPreviewCmd), and what
// a restore would need (restore, filled in by restoreCostCmd).
type contextDrawer struct {
	overlay.ContextDrawer
	preview []string
	restore *loop.RestoreCost
}

func (d *contextDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return d.Update(chatHost{m}, msg)
}

func (d *contextDrawer) view(m *Model, width, height int) []string {
	f := overlay.ContextFacts{Open: m.runner != nil, Starting: m.fresh || m.opening, Snap: m.snap,
		Preview: d.preview, LastUsage: m.lastUsage, SessionUsage: m.sess.Usage}
	if f.Open {
		f.MCP = mcpContextLines(m.th, m.opt.MCP, m.opt.Loop.Config, m.snap.Window, overlay.PercentOf(m.snap.Window))
	}
	if d.restore != nil {
		f.Restore = restoreLines(*d.restore)
	}
	return d.View(chatHost{m}, f, width, height)
}

// commas writes n with thousands separators (theme.Commas).
func commas(n int64) string { return uitheme.Commas(n) }
