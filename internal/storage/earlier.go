package storage

// earlier.go: a page of the history before a message, for a chat that
// shows a session's tail and loads what lies above it as the user
// scrolls up (issue 36, "the chat holds what is on screen"). Its cost
// grows with the page, not with the history before it.

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
)

// Earlier returns the last n messages of a session older than message id
// before, with their parts, oldest first, and whether older ones remain:
// Before's result in pages from its end. n = 0 reads none and only says
// whether any are older.
func (w Window) Earlier(ctx context.Context, sessionID, before string, n int) ([]Entry, bool, error) {
	s := w.s
	op := "load earlier messages of session " + sessionID
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	defer tx.Rollback()
	newest, err := queryMessages(ctx, tx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, sessionID, before, n+1)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	more := len(newest) > n
	if more {
		newest = newest[:n]
	}
	if len(newest) == 0 {
		return nil, more, nil // n = 0 asks only whether older messages exist
	}
	msgs := make([]message.Message, 0, len(newest))
	for i := len(newest) - 1; i >= 0; i-- {
		msgs = append(msgs, newest[i])
	}
	parts, err := readParts(ctx, tx, sessionID, `SELECT `+partColumns+` FROM parts WHERE message_id IN
		(SELECT id FROM messages WHERE session_id = ? AND id >= ? AND id < ?) ORDER BY message_id, id`, sessionID, msgs[0].ID, before)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	return joinParts(msgs, parts), more, nil
}
