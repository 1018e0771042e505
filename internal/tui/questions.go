package tui

// The loop's open questions (dialogs.go, mcpapproval.go) as the chat holds
// them: oldest first, the oldest on screen. A question shown takes keys
// only once armed, dialogGrace after it appeared (show returns the message
// that arms it), so that a key meant for the editor cannot answer it; it
// takes the keyboard only once the user gives it focus (Tab), and the
// Enter gate (dialoggate.go) keeps Enter from confirming a choice the
// focus or the highlight just moved onto. A question whose turn was
// cancelled is dropped (dropAbandoned).

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// questions is the chat's queue of open questions and the state of the
// one on screen. Its zero value holds none.
type questions struct {
	list []drawer // questions from the loop, oldest first
	// shown is the question on screen; it takes keys once armed.
	shown drawer
	armed bool
	// focused: the user gave the question the keyboard (Tab); until then
	// typing goes to the editor.
	focused bool
	// gate keeps Enter from confirming a choice the focus or the
	// highlight just moved onto (dialoggate.go).
	gate enterGate
}

// show puts the oldest question on screen when it is not yet: ok is true
// and armed is the message to deliver after dialogGrace. With no question
// open it clears the focus.
func (qs *questions) show() (armed dialogArmedMsg, ok bool) {
	if len(qs.list) == 0 {
		qs.shown, qs.focused = nil, false
		return dialogArmedMsg{}, false
	}
	if qs.list[0] == qs.shown {
		return dialogArmedMsg{}, false
	}
	qs.shown, qs.armed, qs.focused = qs.list[0], false, false
	return dialogArmedMsg{d: qs.shown}, true
}

// arm lets the question on screen take keys, if msg is still about it.
func (qs *questions) arm(msg dialogArmedMsg) {
	if msg.d == qs.shown {
		qs.armed = true
	}
}

// dropAbandoned closes questions whose turn was cancelled.
func (qs *questions) dropAbandoned() {
	kept := qs.list[:0]
	for _, d := range qs.list {
		if a, ok := d.(interface{ abandoned() bool }); ok && a.abandoned() {
			continue
		}
		kept = append(kept, d)
	}
	for i := len(kept); i < len(qs.list); i++ {
		qs.list[i] = nil
	}
	qs.list = kept
}

// key offers a key to the open question (m is the model the question
// acts on, and delivers the grace's end). It reports false when the
// key is not the question's (it goes to the editor).
func (qs *questions) key(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	q, ok := qs.list[0].(question)
	if !ok || !qs.armed || qs.list[0] != qs.shown {
		return nil, false // too soon: the key was meant for the editor
	}
	s := k.String()
	if !qs.focused {
		if focusKey(s) {
			qs.focused = true
			return m.after(dialogGrace, qs.gate.moved()), true // dialoggate.go
		}
		if !q.shortcut(s) {
			return nil, false
		}
	} else if qs.gate.holds(q, s) {
		return nil, true // Enter on a choice just moved onto
	}
	moves := qs.focused && movesHighlight(s)
	res, cmd := q.update(m, k)
	if moves {
		cmd = tea.Batch(cmd, m.after(dialogGrace, qs.gate.moved()))
	}
	switch res {
	case drawerClose:
		qs.list[0] = nil
		qs.list = qs.list[1:]
		qs.focused = false
	case drawerPass:
		qs.focused = false
	}
	return cmd, true
}

// paste gives a paste to the open question's reason field, if the
// user is typing one.
func (qs *questions) paste(m *Model, p tea.PasteMsg) (tea.Cmd, bool) {
	d, ok := qs.list[0].(*permissionDialog)
	if !ok || !qs.focused || d.reason == nil {
		return nil, false
	}
	_, cmd := d.update(m, tea.PasteMsg{Content: strings.Join(strings.Fields(p.Content), " ")})
	return cmd, true
}

// footer shows a question's keys once it takes them.
func (qs *questions) footer(unfocused, focused string) string {
	switch {
	case !qs.armed:
		return "…"
	case qs.focused:
		return focused
	}
	return unfocused
}

// frame frames a question: highlighted while it waits for focus.
func (qs *questions) frame(th *theme, title string, body []string, footer string, width int) []string {
	style := th.WarnText
	if qs.focused {
		style = th.AccentText
	}
	return frameWith(style, title, body, footer, width)
}
