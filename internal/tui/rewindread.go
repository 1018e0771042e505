package tui

// rewindread.go: what /rewind, /fork, /undo and /redo read of the
// session's history is read in their commands, never on the Update
// goroutine: the turn list before the window the runner opened with
// (loop.WholeHistory) and, after a rewind changed the messages, the
// conversation shown again (chatHistory).

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// turnsLoadedMsg carries the turns /rewind or /fork (name) offers.
type turnsLoadedMsg struct {
	gen     int
	name    string
	history []message.Entry
	turns   []loop.Turn
}

// listTurns reads r's whole history and its turns for /rewind or /fork.
func listTurns(r *loop.Runner, gen int, name string) tea.Cmd {
	return func() tea.Msg {
		h := readHistory(r) // turns before the window Open read too (loop/openwindow.go)
		return turnsLoadedMsg{gen: gen, name: name, history: h, turns: loop.Turns(h)}
	}
}

// apply opens the turn picker, or says that there is nothing to pick.
func (msg turnsLoadedMsg) apply(m *Model) tea.Cmd {
	if msg.gen != m.gen || m.runner == nil {
		return nil
	}
	if len(msg.turns) == 0 {
		return m.setFlash("nothing to "+msg.name+" yet: no message was sent in this session", 3*time.Second)
	}
	m.drawer = turnDrawer{overlay.NewTurnPicker(msg.name, msg.history, msg.turns)}
	return nil
}

// rereader returns what a rewind's command runs after it: when it took
// back or brought back messages, it reads the conversation the chat
// shows again.
func rereader(m *Model) func(*rewoundMsg) {
	r, store, inline := m.runner, m.store, m.inline
	return func(msg *rewoundMsg) {
		if msg.res == nil || len(msg.res.Messages) == 0 {
			return
		}
		st, _ := store.wait()
		msg.history, msg.start = chatHistory(r, st, inline)
	}
}
