package tui

// Steer or queue (issue 17): while the agent works, Enter steers the
// running turn (the message goes in at its next step) and Tab queues the
// message for after the turn (it then starts a turn of its own). The badge
// counts both; the queue panel marks each item and flips it (tab or s).

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// outgoing is a message waiting to be sent, with how it is queued if the
// agent is busy when it is.
type outgoing struct {
	text   string
	kind   message.QueueKind
	images []*message.FileState // sent (or queued) with the text
}

// sendKind sends text to the runner, queued as kind while busy. Sends run
// one at a time so that messages typed quickly keep their order.
func (m *Model) sendKind(text string, kind message.QueueKind) tea.Cmd {
	m.pending = append(m.pending, outgoing{text: text, kind: kind})
	return m.sendNext()
}

// queueForLater handles Tab on the editor: while the agent is busy and no
// question is open, the editor's text is queued for after the turn. ok is
// false when Tab is not for it (idle, empty editor, a question open).
func (m *Model) queueForLater() (tea.Cmd, bool) {
	if !m.busy || m.questions.Len() > 0 || strings.TrimSpace(m.editor.value()) == "" {
		return nil, false
	}
	if _, _, isCommand := parseCommand(m.editor.value()); isCommand {
		return nil, false
	}
	return m.submitAs(message.KindQueue), true
}

// queueBadge counts the queue by kind: "1 steering · 2 queued", leaving
// out a kind with none.
func queueBadge(queue []message.QueuedMessage) string {
	steering, queued := 0, 0
	for i := range queue {
		if queue[i].Steers() {
			steering++
		} else {
			queued++
		}
	}
	var parts []string
	if steering > 0 {
		parts = append(parts, fmt.Sprintf("%d steering", steering))
	}
	if queued > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", queued))
	}
	return strings.Join(parts, " · ")
}
