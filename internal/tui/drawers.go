package tui

// Drawers open between the conversation and the editor: the /context
// overlay (contextdrawer.go), help, the session and model pickers
// (picker.go), the queue panel, and the loop's questions (permission,
// doom loop: dialogs.go). Each is a small model; the root model gives it
// keys while it is open.

import (
	"fmt"
	"slices"
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

// helpDrawer lists keys and commands; it scrolls (help.go).
type helpDrawer struct{ scroller }

func (d *helpDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return infoKeys(msg), nil
}

func (d *helpDrawer) view(m *Model, width, height int) []string {
	th := m.th
	keys := [][2]string{
		{"enter", "send (queued while the agent works)"},
		{"shift+enter ctrl+j", "new line"},
		{"↑ ↓", "history; ↑ on an empty editor pulls the last queued message back"},
		{"esc", "interrupt the agent; close a panel"},
		{"ctrl+c", "clear the editor; twice to quit"},
		{"pgup pgdn wheel", "scroll the conversation"},
		{"ctrl+o", "expand or collapse the focused card (marked ▎; or click one)"},
		{"alt+↑ alt+↓", "move the focus to the previous or next card or message"},
		{"alt+o", "expand or collapse every card (/expand all)"},
		{"alt+y", "copy the focused message, else the newest reply, via OSC 52 (/copy code: its code block)"},
		{"ctrl+f", "search the conversation (/find)"},
		{"tab", "while a permission question is open: answer it (alt+a/s/d/x answer at once)"},
		{"tab", "while the agent works: queue the message for after the turn (enter steers the running turn)"},
		{"ctrl+q", "queued messages: edit, delete, reorder, flip steer ⇄ queue"},
		{"ctrl+v", "attach the clipboard's image (pasting an image file's path attaches it too; backspace on an empty editor removes one)"},
		{"shift+drag", "select text (the mouse scrolls the conversation)"},
	}
	if m.inline {
		keys = slices.DeleteFunc(keys, func(k [2]string) bool {
			return k[0] == "pgup pgdn wheel" || k[0] == "shift+drag" || k[0] == "ctrl+f"
		})
		keys = append(keys,
			[2]string{"inline mode", "finished messages are in the terminal's scrollback: scroll, search and select there"},
			[2]string{"", "ctrl+o on a printed card prints it again, expanded"})
	}
	var body []string
	for _, k := range keys {
		body = append(body, th.Key.Render(fmt.Sprintf("%-18s", k[0]))+" "+k[1])
	}
	body = append(body, "")
	for _, c := range commands {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		body = append(body, th.Key.Render(fmt.Sprintf("%-18s", name))+" "+c.help)
	}
	body = append(body, m.custom.helpLines(th, m.opt.Commands)...) // custom.go
	body, footer := d.window(body, height, "esc close")
	return frameLines(th, "Help", body, footer, width)
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
