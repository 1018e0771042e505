package overlay

// The loop's open questions (permission.go, doom.go, mcp.go) as the chat
// holds them: oldest first, the oldest on screen. A question shown takes
// keys only once armed, Grace after it appeared (Show returns the message
// that arms it), so that a key meant for the editor cannot answer it; it
// takes the keyboard only once the user gives it focus (Tab), and the
// Enter gate (gate.go) keeps Enter from confirming a choice the focus or
// the highlight just moved onto. A question whose turn was cancelled is
// dropped (DropAbandoned).
//
// A question must not be answerable by accident. It opens under the
// user's fingers while they type, so it does not take the keyboard:
// typed text keeps going to the editor (nothing is lost) and the terminal
// bell rings (or, the terminal unfocused, a notification goes out:
// tui/notify.go). It answers only
//   - a modified key shown on its buttons (alt+a, alt+s, alt+d, …), or
//   - Enter over a highlighted choice, once the user gave it focus with
//     Tab (Shift+Tab) — on a choice that lets something run, only once
//     the highlight stood still for Grace (gate.go); Esc gives focus back
//     to the editor.

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// Grace is how long a question ignores its keys after it appears (they
// go to the editor meanwhile), and how long Enter waits after a move of
// its focus or highlight.
const Grace = 300 * time.Millisecond

// Bell rings the terminal's bell: a question wants the user.
var Bell = tea.Raw("\a")

// Question is a dialog from the loop (or an MCP server's approval). Its
// Update and View are given the queue it is in, whose focus they show
// and may take.
type Question interface {
	Update(h Host, qs *Questions, msg tea.Msg) (Result, tea.Cmd)
	// View renders at most height lines of width cells.
	View(h Host, qs *Questions, width, height int) []string
	// Shortcut reports whether key (as tea.KeyPressMsg.String names it)
	// answers the question without focus.
	Shortcut(key string) bool
	// Abandoned reports whether the question's turn was cancelled.
	Abandoned() bool
	// Approving reports whether Enter now would let something run: the
	// highlighted choice allows, approves or continues (gate.go).
	Approving() bool
}

// ArmedMsg says the grace of a question shown has ended.
type ArmedMsg struct{ q Question }

// Questions is the chat's queue of open questions and the state of the
// one on screen. Its zero value holds none.
type Questions struct {
	list []Question // oldest first
	// shown is the question on screen; it takes keys once armed.
	shown Question
	armed bool
	// focused: the user gave the question the keyboard (Tab); until then
	// typing goes to the editor.
	focused bool
	// gate keeps Enter from confirming a choice the focus or the
	// highlight just moved onto (gate.go).
	gate enterGate
}

// Add queues a question.
func (qs *Questions) Add(q Question) { qs.list = append(qs.list, q) }

// Len is how many questions are open.
func (qs *Questions) Len() int { return len(qs.list) }

// Index is the place of q in the queue (0 is on screen), -1 if absent.
func (qs *Questions) Index(q Question) int {
	for i, o := range qs.list {
		if o == q {
			return i
		}
	}
	return -1
}

// Defer moves the oldest question behind the others.
func (qs *Questions) Defer() {
	if len(qs.list) < 2 {
		return
	}
	q := qs.list[0]
	copy(qs.list, qs.list[1:])
	qs.list[len(qs.list)-1] = q
}

// Clear drops every question (unanswered: a question from the loop is
// abandoned with its turn).
func (qs *Questions) Clear() { qs.list = nil }

// Armed reports whether the question on screen takes keys.
func (qs *Questions) Armed() bool { return qs.armed }

// Focused reports whether the user gave the question the keyboard.
func (qs *Questions) Focused() bool { return qs.focused }

// Moving reports whether Enter waits for a move's grace (gate.go).
func (qs *Questions) Moving() bool { return qs.gate.moving }

// Show puts the oldest question on screen when it is not yet: ok is true
// and armed is the message to deliver after Grace. With no question open
// it clears the focus.
func (qs *Questions) Show() (armed ArmedMsg, ok bool) {
	if len(qs.list) == 0 {
		qs.shown, qs.focused = nil, false
		return ArmedMsg{}, false
	}
	if qs.list[0] == qs.shown {
		return ArmedMsg{}, false
	}
	qs.shown, qs.armed, qs.focused = qs.list[0], false, false
	return ArmedMsg{q: qs.shown}, true
}

// Arm lets the question on screen take keys, if msg is still about it.
func (qs *Questions) Arm(msg ArmedMsg) {
	if msg.q == qs.shown {
		qs.armed = true
	}
}

// Settle ends the grace of a move of the focus or the highlight.
func (qs *Questions) Settle(msg SettledMsg) { qs.gate.settle(msg) }

// DropAbandoned closes questions whose turn was cancelled.
func (qs *Questions) DropAbandoned() {
	kept := qs.list[:0]
	for _, q := range qs.list {
		if q.Abandoned() {
			continue
		}
		kept = append(kept, q)
	}
	for i := len(kept); i < len(qs.list); i++ {
		qs.list[i] = nil
	}
	qs.list = kept
}

// focusKey reports whether key moves the focus to an open question.
func focusKey(key string) bool { return key == "tab" || key == "shift+tab" }

// Key offers a key to the open question. It reports false when the key
// is not the question's (it goes to the editor).
func (qs *Questions) Key(h Host, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if len(qs.list) == 0 {
		return nil, false
	}
	q := qs.list[0]
	if !qs.armed || q != qs.shown {
		return nil, false // too soon: the key was meant for the editor
	}
	s := k.String()
	if !qs.focused {
		if focusKey(s) {
			qs.focused = true
			return h.After(Grace, qs.gate.moved()), true // gate.go
		}
		if !q.Shortcut(s) {
			return nil, false
		}
	} else if qs.gate.holds(q, s) {
		return nil, true // Enter on a choice just moved onto
	}
	moves := qs.focused && movesHighlight(s)
	res, cmd := q.Update(h, qs, k)
	if moves {
		cmd = tea.Batch(cmd, h.After(Grace, qs.gate.moved()))
	}
	switch res {
	case Close:
		qs.list[0] = nil
		qs.list = qs.list[1:]
		qs.focused = false
	case Pass:
		qs.focused = false
	}
	return cmd, true
}

// Paste gives a paste to the open question's reason field, if the user
// is typing one.
func (qs *Questions) Paste(h Host, p tea.PasteMsg) (tea.Cmd, bool) {
	if len(qs.list) == 0 {
		return nil, false
	}
	d, ok := qs.list[0].(*PermissionDialog)
	if !ok || !qs.focused || d.reason == nil {
		return nil, false
	}
	_, cmd := d.Update(h, qs, tea.PasteMsg{Content: strings.Join(strings.Fields(p.Content), " ")})
	return cmd, true
}

// View renders the question on screen (nil with none open).
func (qs *Questions) View(h Host, width, height int) []string {
	if len(qs.list) == 0 {
		return nil
	}
	return qs.list[0].View(h, qs, width, height)
}

// footer shows a question's keys once it takes them.
func (qs *Questions) footer(unfocused, focused string) string {
	switch {
	case !qs.armed:
		return "…"
	case qs.focused:
		return focused
	}
	return unfocused
}

// frame frames a question: highlighted while it waits for focus.
func (qs *Questions) frame(th *theme.Theme, title string, body []string, footer string, width int) []string {
	var style lipgloss.Style = th.WarnText
	if qs.focused {
		style = th.AccentText
	}
	return theme.FrameWith(style, title, body, footer, width)
}
