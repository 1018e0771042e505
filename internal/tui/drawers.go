package tui

// Drawers open between the conversation and the editor: the /context
// overlay (contextdrawer.go), help, the session and model pickers
// (picker.go), the queue panel, and the loop's questions (permission,
// doom loop: dialogs.go). Each is a small model; the root model gives it
// keys while it is open.

import (
	"context"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/termsafe"
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

// infoKeys is how the informational drawers treat keys: esc, enter and q
// close them, scrolling keys are the conversation's, and typing goes to
// the editor.
func infoKeys(msg tea.Msg) drawerResult {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep
	}
	switch k.String() {
	case "esc", "enter", "q":
		return drawerClose
	}
	return drawerPass
}

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

// queueDrawer lists queued messages to edit, delete or reorder.
type queueDrawer struct{ list listEditor }

func newQueueDrawer() *queueDrawer { return &queueDrawer{list: listEditor{editHeight: 4}} }

func (q *queueDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	r := m.runner
	if q.list.editing != nil {
		saved, cmd := q.list.updateEditing(msg)
		if saved == nil || r == nil {
			return drawerKeep, cmd
		}
		return drawerKeep, func() tea.Msg {
			if err := r.UpdateQueued(context.Background(), saved.id, saved.text); err != nil {
				return opFailedMsg{what: "edit the queued message (it may have been sent already)", err: err}
			}
			return nil
		}
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	if len(m.queue) == 0 {
		if k.String() == "esc" || k.String() == "ctrl+q" {
			return drawerClose, nil
		}
		return drawerPass, nil
	}
	q.list.clamp(len(m.queue))
	cur := m.queue[q.list.sel]
	op := func(what string, fn func(ctx context.Context) error) tea.Cmd {
		if r == nil {
			return nil
		}
		return func() tea.Msg {
			if err := fn(context.Background()); err != nil {
				return opFailedMsg{what: what, err: err}
			}
			return nil
		}
	}
	if q.list.move(k.String(), len(m.queue)) {
		return drawerKeep, nil
	}
	switch k.String() {
	case "esc", "ctrl+q":
		return drawerClose, nil
	case "enter", "e":
		q.list.edit(m.th, m.width, cur.ID, cur.Text)
	case "d", "delete", "backspace", "x":
		return drawerKeep, op("delete the queued message", func(ctx context.Context) error { return r.RemoveQueued(ctx, cur.ID) })
	case "tab", "s":
		kind := flipped(cur)
		return drawerKeep, op("flip the queued message (it may have been sent already)", func(ctx context.Context) error { return r.SetQueuedKind(ctx, cur.ID, kind) })
	case "alt+up", "shift+up", "K":
		if q.list.sel > 0 {
			q.list.sel--
			to := q.list.sel
			return drawerKeep, op("move the queued message", func(ctx context.Context) error { return r.MoveQueued(ctx, cur.ID, to) })
		}
	case "alt+down", "shift+down", "J":
		if q.list.sel < len(m.queue)-1 {
			q.list.sel++
			to := q.list.sel
			return drawerKeep, op("move the queued message", func(ctx context.Context) error { return r.MoveQueued(ctx, cur.ID, to) })
		}
	}
	return drawerKeep, nil
}

func (q *queueDrawer) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	var body []string
	if len(m.queue) == 0 {
		body = append(body, th.Dim.Render("nothing queued: messages sent while the agent works wait here"))
	}
	rows := make([]string, len(m.queue))
	for i, e := range m.queue {
		rows[i] = fmt.Sprintf("%d. %s %s", i+1, kindMark(e), oneLine(termsafe.Strip(e.Text), inner-10))
	}
	body = append(body, q.list.view(th, rows, inner)...)
	footer := "↑↓ select · enter edit · tab steer⇄queue · d delete · shift+↑↓ move · esc"
	if q.list.editing != nil {
		footer = "enter save · esc cancel"
	}
	return frameLines(th, fmt.Sprintf("Queue (%d) · steer: at the next step · queue: after the turn", len(m.queue)), clampBody(body, height, q.list.sel), footer, width)
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
