package tui

// /compact undo: the chat's `agent compact --undo`. The loop restores the
// history as it was before the newest compaction (or the pruned outputs)
// when it fits the model, and says by how much it does not otherwise.

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
)

// compactionUndoneMsg reports how /compact undo ended.
type compactionUndoneMsg struct {
	undo loop.Undo
	err  error
}

// undoCompactCmd runs /compact undo.
func (m *Model) undoCompactCmd() tea.Cmd {
	if m.runner == nil {
		return m.setFlash("nothing to undo yet", 2*time.Second)
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end, or press esc to interrupt it", 3*time.Second)
	}
	r := m.runner
	return func() tea.Msg {
		u, err := r.UndoCompaction(context.Background())
		return compactionUndoneMsg{undo: u, err: err}
	}
}

func (m *Model) handleCompactionUndone(msg compactionUndoneMsg) {
	var tooLarge *loop.UndoTooLargeError
	switch {
	case errors.Is(msg.err, loop.ErrNothingToUndo):
		m.chat.notice(noticeInfo, "nothing to undo: no compaction in force, no cleared output", "")
		return
	case errors.As(msg.err, &tooLarge):
		m.chat.notice(noticeWarn, "compact undo: "+msg.err.Error(), "")
		return
	case msg.err != nil:
		m.chat.notice(noticeError, "compact undo: "+msg.err.Error(), "")
		return
	}
	if m.runner != nil {
		m.snap = m.runner.Reading()
	}
	u := msg.undo
	if u.Kind == "compaction" {
		m.chat.notice(noticeInfo, fmt.Sprintf("compaction undone: the history before it is sent again (~%s → ~%s tokens)", commas(u.TokensBefore), commas(u.TokensAfter)), "")
		return
	}
	m.chat.notice(noticeInfo, fmt.Sprintf("%d cleared tool outputs restored (~%s → ~%s tokens)", u.Parts, commas(u.TokensBefore), commas(u.TokensAfter)), "")
}
