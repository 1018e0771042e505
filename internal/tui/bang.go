package tui

// !command (issue 17): a message that starts with "!" runs as a shell
// command in the session's directory, with no model call, through the
// bash tool (loop.Runner.RunShell). The user typed it, so no permission
// is asked. Its output shows as a tool card and goes to the model with the
// next message.

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// bangCommand reports whether text is a !command, and the command.
func bangCommand(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "!") || strings.TrimSpace(t[1:]) == "" {
		return "", false
	}
	return strings.TrimSpace(t[1:]), true
}

// bangDoneMsg: a !command finished.
type bangDoneMsg struct {
	command string
	err     error
}

// runBang runs a !command.
func (m *Model) runBang(command string) tea.Cmd {
	if m.runner == nil {
		m.editor.setValue("!" + command)
		return m.setFlash("open a session first (send a message or /new): your command stays in the editor", 3*time.Second)
	}
	if m.busy {
		m.editor.setValue("!" + command)
		return m.setFlash("the agent is busy: run the command when the turn ends (esc interrupts)", 3*time.Second)
	}
	r := m.runner
	return func() tea.Msg {
		_, err := r.RunShell(context.Background(), command)
		return bangDoneMsg{command: command, err: err}
	}
}
