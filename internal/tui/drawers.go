package tui

// Drawers open between the conversation and the editor: the /context
// overlay, help, the pickers, the queue and pins panels, the summary
// editor, the outside-change question (and, above them, the loop's
// questions: overlay.Questions). Each is a small update/view type of
// internal/tui/overlay; the chat's drawer slot holds it through a short
// adapter (here and beside the code that fills it: contextdrawer.go,
// picker.go, turnpicker.go, control.go, rewind.go) that passes in what the
// drawer shows and acts on what it chose. The search line (find.go) and
// the /diff overlay (patchcard.go) stay in this package: the one moves
// the conversation, the other shares the patch card's renderer.

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/tui/overlay"
	uitheme "github.com/ctxloop/agent/internal/tui/theme"
)

// drawerResult tells the root model what to do after a drawer's update:
// the overlays' Result (overlay/overlay.go).
type drawerResult = overlay.Result

const (
	drawerKeep  = overlay.Keep  // the drawer handled it
	drawerClose = overlay.Close // close the drawer
	drawerPass  = overlay.Pass  // not for the drawer: close it and let the editor have the key
)

type drawer interface {
	update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd)
	// view renders at most height lines of width cells.
	view(m *Model, width, height int) []string
}

// frameLines, frameWith and clampBody are the theme package's frame
// (theme/frame.go).
func frameLines(th *theme, title string, body []string, footer string, width int) []string {
	return uitheme.Frame(th, title, body, footer, width)
}

func frameWith(style lipgloss.Style, title string, body []string, footer string, width int) []string {
	return uitheme.FrameWith(style, title, body, footer, width)
}

func clampBody(body []string, height, sel int) []string { return uitheme.ClampBody(body, height, sel) }

// infoKeys is how the informational drawers treat keys (overlay.InfoKeys).
func infoKeys(msg tea.Msg) drawerResult { return overlay.InfoKeys(msg) }

// hosted puts a self-contained overlay.Drawer in the chat's drawer slot.
type hosted struct{ overlay.Drawer }

func (d hosted) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return d.Update(chatHost{m}, msg)
}

func (d hosted) view(m *Model, width, height int) []string { return d.View(chatHost{m}, width, height) }

// helpDrawer puts overlay.HelpDrawer in the chat's drawer slot, with the
// chat's commands (built in, then custom: custom.go).
type helpDrawer struct{ *overlay.HelpDrawer }

func newHelpDrawer() helpDrawer { return helpDrawer{&overlay.HelpDrawer{}} }

func (d helpDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return d.Update(chatHost{m}, msg)
}

func (d helpDrawer) view(m *Model, width, height int) []string {
	var cmds [][2]string
	for _, c := range commands {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		cmds = append(cmds, [2]string{name, c.help})
	}
	return d.View(chatHost{m}, m.inline, cmds, m.custom.helpLines(m.th, m.opt.Commands), width, height)
}

// queueDrawer puts overlay.QueueDrawer in the chat's drawer slot, given
// the queue as it stands and the runner's edits of it.
type queueDrawer struct{ *overlay.QueueDrawer }

func newQueueDrawer() queueDrawer { return queueDrawer{overlay.NewQueueDrawer()} }

func (q queueDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	var ops overlay.QueueOps
	if m.runner != nil {
		ops = m.runner
	}
	return q.Update(chatHost{m}, m.queue, ops, msg)
}

func (q queueDrawer) view(m *Model, width, height int) []string {
	return q.View(chatHost{m}, m.queue, width, height)
}

// sinceLabel is a short elapsed time for the status line.
func sinceLabel(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Since(t)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return formatDuration(d)
}
