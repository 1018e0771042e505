package tui

// Resume draws the last screenful first. Opening a session (the lease,
// repair, the whole history, the calculator) takes a while on a long one,
// so while it runs the chat reads the session's last messages
// (storage.LoadTail) and shows them; when the session is open its whole
// history replaces them, reusing their items (and the markdown already
// rendered for them) so that the screen does not change under the user.
// Inline mode prints what it shows into the terminal's scrollback, which
// cannot be taken back, so it waits for the whole history.

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// resumeTailMessages is how many messages the chat shows before the
// session is open: more than a screenful on any common terminal.
const resumeTailMessages = 50

// tailLoadedMsg carries the last messages of the session being opened.
type tailLoadedMsg struct {
	gen     int
	sess    *message.Session
	entries []message.Entry
}

// loadTail reads the last messages of the session the current generation
// opens. It reads, never writes: the runner being opened owns the session.
func (m *Model) loadTail(sessionID string) tea.Cmd {
	if m.inline {
		return nil
	}
	gen, store := m.gen, m.store
	return func() tea.Msg {
		st, err := store.wait()
		if err != nil {
			return nil // the open reports it
		}
		ctx := context.Background()
		sess, err := st.GetSession(ctx, sessionID)
		if err != nil {
			return nil
		}
		entries, _, err := st.LoadTail(ctx, sessionID, resumeTailMessages)
		if err != nil {
			return nil
		}
		return tailLoadedMsg{gen: gen, sess: sess, entries: entries}
	}
}

// handleTailLoaded shows the tail while the session is still opening.
func (m *Model) handleTailLoaded(msg tailLoadedMsg) {
	if msg.gen != m.gen || m.runner != nil || !m.opening {
		return
	}
	m.sess = *msg.sess
	m.buildHistory(msg.entries, false, nil)
	m.tailItems = make(map[string]item, len(m.parts))
	for id, it := range m.parts {
		m.tailItems[id] = it
	}
}

// reusable reports whether it, an item shown for the tail, can stand for
// p in the whole history: the same kind of item, updated by addPart.
func reusable(it item, role message.Role, p *message.Part) bool {
	switch it := it.(type) {
	case *userItem:
		return p.Type == message.PartText && role == message.RoleUser && it.text == newUserItem(p.Text, false).text
	case *textItem:
		return p.Type == message.PartText && role != message.RoleUser && it.doc.text() == p.Text
	case *toolItem:
		return p.Type == message.PartTool
	}
	return false
}
