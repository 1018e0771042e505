package tui

// What the picker of /rewind and /fork (overlay.TurnPicker) does: rewind
// the session to before the chosen turn, or fork it.

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// turnDrawer puts overlay.TurnPicker in the chat's drawer slot and acts
// on the choice: a rewind (rewindTo) or a fork (forkCmd).
type turnDrawer struct{ *overlay.TurnPicker }

func (d turnDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	res, cmd := d.Update(chatHost{m}, msg)
	c, ok := d.Choice()
	switch {
	case !ok:
		return res, cmd
	case c.Fork:
		return drawerClose, forkCmd(m.runner, m.gen, m.sess.ID, c.ForkEnd)
	}
	return drawerClose, m.rewindTo(c.Turn, c.Mode)
}

func (d turnDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, width, height)
}

// rewindTo rewinds the session to before turn t.
func (m *Model) rewindTo(t loop.Turn, mode string) tea.Cmd {
	r := m.runner
	if r == nil {
		return nil
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end or press esc, then /rewind", 3*time.Second)
	}
	id := t.MessageID
	run := func(force bool) func(context.Context) (*loop.RewindResult, error) {
		return func(ctx context.Context) (*loop.RewindResult, error) {
			return r.Rewind(ctx, id, loop.RewindOptions{Mode: mode, Force: force})
		}
	}
	return m.cp.rewind(m.gen, "rewind", mode, run(false), run(true), rereader(m))
}

// forkCmd copies session from up to message atID ("" for all of it)
// through its runner r (nothing without one); gen is the chat's
// generation.
func forkCmd(r *loop.Runner, gen int, from, atID string) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		s, err := r.Fork(context.Background(), atID)
		return forkedMsg{gen: gen, from: from, sess: s, err: err}
	}
}

// handleForked switches the chat to the fork.
func (m *Model) handleForked(msg forkedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	if msg.err != nil {
		m.chat.notice(noticeError, "fork: "+msg.err.Error(), "")
		m.chat.toBottom()
		return nil
	}
	text := fmt.Sprintf("forked session %s into %s", msg.from, msg.sess.ID)
	if cmd := m.refuseSwitch(); cmd != nil {
		m.chat.notice(noticeInfo, text, "/sessions opens the fork.")
		return cmd
	}
	m.resetConversation()
	m.cp.openNotices = append(m.cp.openNotices, &noticeItem{kind: noticeInfo, text: text + ": this is the fork", hint: "/sessions goes back to the original."})
	return m.openSession(msg.sess.ID)
}
