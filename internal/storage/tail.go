package storage

// Loading the end of a session first: a resumed chat draws its last
// screenful from LoadTail while the whole history loads behind it.

import (
	"context"
	"database/sql"

	"github.com/ctxloop/agent/internal/message"
)

// LoadTail returns the last n messages of a session with their parts, in
// the order LoadHistory gives them (the end of its result), and whether
// the session holds older messages. It reads n messages and their parts,
// not the session: its cost does not grow with the history.
func (s *Store) LoadTail(ctx context.Context, sessionID string, n int) (entries []Entry, more bool, err error) {
	op := "load the last messages of session " + sessionID
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? ORDER BY id DESC LIMIT ?`, sessionID, n+1)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	var msgs []message.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			rows.Close()
			return nil, false, s.fail(op, err)
		}
		msgs = append(msgs, *m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, s.fail(op, err)
	}
	if len(msgs) > n {
		msgs, more = msgs[:n], true
	}
	if len(msgs) == 0 {
		return nil, more, nil
	}
	entries = make([]Entry, len(msgs))
	index := make(map[string]int, len(msgs))
	for i := range msgs {
		j := len(msgs) - 1 - i
		entries[j].Message = msgs[i]
		index[msgs[i].ID] = j
	}
	parts, err := tailParts(ctx, tx, sessionID, entries[0].Message.ID)
	if err != nil {
		return nil, false, s.fail(op, err)
	}
	for _, p := range parts {
		if i, ok := index[p.MessageID]; ok {
			entries[i].Parts = append(entries[i].Parts, p)
		}
	}
	return entries, more, nil
}

// tailParts reads the parts of a session's messages from the one with id
// from on, with their unfinished streams' deltas.
func tailParts(ctx context.Context, tx *sql.Tx, sessionID, from string) ([]message.Part, error) {
	return readParts(ctx, tx, sessionID, `SELECT `+partColumns+` FROM parts WHERE message_id IN
		(SELECT id FROM messages WHERE session_id = ? AND id >= ?) ORDER BY message_id, id`, sessionID, from)
}
