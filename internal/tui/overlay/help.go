package overlay

// The /help drawer, and the scrolling of a drawer whose body is longer
// than the screen.
//
// A drawer whose body can be longer than the screen scrolls: ↑↓ by a
// line, pgup/pgdn by a page, home/end to the ends. Only a body that does
// not fit takes those keys; otherwise they go where they went before.

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// scroller is the scroll state of a drawer's body.
type scroller struct {
	top int // the first line shown
	// page and overflow are from the last window: the lines shown, and
	// whether the body was longer.
	page     int
	overflow bool
}

// ScrollKey moves the window for a scrolling key; false when the key is
// not one or the body fits.
func (s *scroller) ScrollKey(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !s.overflow {
		return false
	}
	switch k.String() {
	case "up":
		s.top--
	case "down":
		s.top++
	case "pgup":
		s.top -= max(1, s.page-1)
	case "pgdown":
		s.top += max(1, s.page-1)
	case "home":
		s.top = 0
	case "end":
		s.top = 1 << 30
	default:
		return false
	}
	s.top = max(0, s.top) // window clamps the end
	return true
}

// window returns the body's lines that fit in a drawer of height rows,
// and the footer, which says when there is more.
func (s *scroller) window(body []string, height int, footer string) ([]string, string) {
	n := max(1, height-2)
	s.page, s.overflow = n, len(body) > n
	if !s.overflow {
		s.top = 0
		return body, footer
	}
	s.top = min(s.top, len(body)-n)
	return body[s.top : s.top+n], "↑↓ pgup pgdn scroll · " + footer
}

// HelpDrawer lists keys and commands; it scrolls.
type HelpDrawer struct{ scroller }

// Update closes on esc, enter or q and passes other keys on (InfoKeys).
func (d *HelpDrawer) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	return InfoKeys(msg), nil
}

// View lists the keys (those of the inline mode when inline), then
// commands (name and help), then the custom lines.
func (d *HelpDrawer) View(h Host, inline bool, commands [][2]string, custom []string, width, height int) []string {
	th := h.Theme()
	keys := [][2]string{
		{"enter", "send; while the agent works, steer the running turn (tab queues)"},
		{"shift+enter ctrl+j", "new line"},
		{"@path", "attach a file (@dir/ a listing), completed as you type"},
		{"!command", "run a shell command yourself; its output joins the next message"},
		{"↑ ↓", "history; ↑ on an empty editor pulls the last queued message back"},
		{"esc", "interrupt the agent; close a panel"},
		{"ctrl+c", "clear the editor; twice to quit"},
		{"pgup pgdn wheel", "scroll the conversation"},
		{"ctrl+o", "expand or collapse the focused card (marked ▎; or click one)"},
		{"alt+↑ alt+↓", "move the focus to the previous or next card or message"},
		{"alt+o", "expand or collapse every card (/expand all)"},
		{"alt+y", "copy the focused message, else the newest reply, via OSC 52 (/copy code: its code block)"},
		{"ctrl+f", "search the conversation (/find)"},
		{"ctrl+r", "search the messages you sent: ctrl+r older, enter takes, esc cancels"},
		{"ctrl+g", "write the message in $EDITOR"},
		{"esc (ui.vi)", "vi normal mode: h j k l w b 0 $ x dd, i a A o back to insert"},
		{"tab", "while a permission question is open: answer it (alt+a/s/d/x answer at once)"},
		{"tab", "while the agent works: queue the message for after the turn (enter steers the running turn)"},
		{"shift+tab", "switch plan mode: read-only tools only; the plan opens to approve (enter), edit (e) or keep planning (esc)"},
		{"ctrl+s", "while a checkpoint is being taken: skip it (the session then keeps only the files its tools name)"},
		{"ctrl+q", "queued messages: edit, delete, reorder, flip steer ⇄ queue"},
		{"ctrl+t", "collapse or expand the model's todo list above the editor"},
		{"ctrl+v", "attach the clipboard's image (pasting an image file's path attaches it too; backspace on an empty editor removes one)"},
		{"shift+drag", "select text (the mouse scrolls the conversation)"},
	}
	if inline {
		keys = slices.DeleteFunc(keys, func(k [2]string) bool {
			return k[0] == "pgup pgdn wheel" || k[0] == "shift+drag" || k[0] == "ctrl+f"
		})
		keys = append([][2]string{ // first: the list may be taller than the screen
			{"inline mode", "finished messages are in the terminal's scrollback: scroll, search and select there"},
			{"", "ctrl+o on a printed card prints it again, expanded"}}, keys...)
	}
	var body []string
	for _, k := range keys {
		body = append(body, th.Key.Render(fmt.Sprintf("%-18s", k[0]))+" "+k[1])
	}
	body = append(body, "")
	for _, c := range commands {
		body = append(body, th.Key.Render(fmt.Sprintf("%-18s", c[0]))+" "+c[1])
	}
	body = append(body, custom...)
	body, footer := d.window(body, height, "esc close")
	return theme.Frame(th, "Help", body, footer, width)
}

// LinesDrawer shows lines of text in a panel.
type LinesDrawer struct {
	Title, Footer string
	Lines         []string
}

// Update closes on esc, enter or q and passes other keys on (InfoKeys).
func (d *LinesDrawer) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	return InfoKeys(msg), nil
}

func (d *LinesDrawer) View(h Host, width, height int) []string {
	inner := max(10, width-4)
	var body []string
	for _, l := range d.Lines {
		body = append(body, theme.Wrap(termsafe.Strip(l), inner)...)
	}
	return theme.Frame(h.Theme(), d.Title, theme.ClampBody(body, height, 0), d.Footer, width)
}
