package storage

// window.go: reading the part of a session's history that a request
// sends (issue 36, "open what you send"). A session opens by reading a
// skeleton — its summaries, the messages that hold compaction parts and
// the latest todo list, with those parts only (found through migration 0010's
// partial indexes) — letting the caller decide from it where the history
// it needs starts, and reading the messages from there on with all their
// parts, in one snapshot. What lies before is read on demand (Before).

import (
	"context"
	"database/sql"
	"math"
	"sort"

	"github.com/ctxloop/agent/internal/message"
)

// Window reads a session's history from a point on, and the rest of it
// on demand. Its zero value is unusable: get one from Store.Window.
type Window struct{ s *Store }

// Window returns the store's reader of history windows.
func (s *Store) Window() Window { return Window{s} }

// Load reads the skeleton of a session's history (its summary messages,
// and the messages holding compaction parts or the latest todo list,
// each with those parts only, oldest first: readSkeleton), asks from
// where to start,
// and returns the messages from that id on with all their parts, in the
// order LoadHistory gives them (the end of its result). from returning ""
// reads the whole history. Its cost grows with the window and the
// skeleton of the newest compactions (skeleton.go), not with the history
// before the window. While Window.ThroughWriter is on (agent run's own
// open) it reads through the writing connection (openreads.go), which it
// holds until it returns: from must not use the store.
func (w Window) Load(ctx context.Context, sessionID string, from func(skeleton []Entry) string) ([]Entry, error) {
	s := w.s
	op := "load the history sent of session " + sessionID
	// One connection: its transaction for the skeleton, its driver
	// connection for the window's rows (rawrows.go), one snapshot.
	db, writer := windowReader(s) // openreads.go
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer conn.Close()
	restore, err := readOnce(ctx, conn, writer)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer restore()
	// A read transaction: on the writing connection (openreads.go) a
	// plain BEGIN, not the IMMEDIATE every write takes, so that the
	// read neither takes nor waits for the write lock.
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer tx.Rollback()
	// The flushed text of unfinished streams, read once for the skeleton's
	// parts and the window's.
	deltas, err := sessionDeltas(ctx, tx, sessionID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	at, err := loadSkeleton(ctx, tx, sessionID, deltas, from)
	if err != nil {
		return nil, s.fail(op, err)
	}
	entries, err := readWindow(ctx, conn, tx, sessionID, at, deltas)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return entries, nil
}

// Before returns the messages of a session older than message id before,
// with their parts, in order: what a window leaves out (nil when it
// left out nothing).
func (w Window) Before(ctx context.Context, sessionID, before string) ([]Entry, error) {
	entries, _, err := w.Earlier(ctx, sessionID, before, math.MaxInt32) // every one: a page of all
	return entries, err
}

// readSkeleton reads the skeleton Window.Load hands its caller: every
// summary, every compaction part, and the latest todo list — the newest
// completed todo_write of an assistant message no rewind took back (a
// completed call's input parsed: the tool refuses others), as
// todo.LatestIn finds it — with their messages; the summaries and
// compaction parts only of the messages from id since on ("" all of
// them: skeleton.go). It grows with the compactions read (one per
// window's worth of history), not with the history. deltas are the
// session's unfinished streams (sessionDeltas).
func readSkeleton(ctx context.Context, tx *sql.Tx, sessionID, since string, deltas map[string]string) ([]Entry, error) {
	parts, err := readPartsWith(ctx, tx, deltas, `SELECT `+partColumns+` FROM parts INDEXED BY parts_compaction_message
		WHERE session_id = ? AND type = 'compaction' AND message_id >= ? ORDER BY id`, sessionID, since)
	if err != nil {
		return nil, err
	}
	todo, err := readPartsWith(ctx, tx, deltas, `SELECT `+partColumns+` FROM parts
		WHERE session_id = ? AND type = 'tool' AND json_extract(state, '$.tool.name') = 'todo_write'
		AND json_extract(state, '$.tool.status') = 'completed'
		AND EXISTS (SELECT 1 FROM messages m WHERE m.id = parts.message_id AND m.rewind_id = '' AND m.role = 'assistant')
		ORDER BY message_id DESC, id DESC LIMIT 1`, sessionID)
	if err != nil {
		return nil, err
	}
	parts = append(parts, todo...)
	msgs, err := queryMessages(ctx, tx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND summary = 1 AND id >= ?
		UNION SELECT `+messageColumns+` FROM messages WHERE id IN
		(SELECT message_id FROM parts INDEXED BY parts_compaction_message
		WHERE session_id = ? AND type = 'compaction' AND message_id >= ?) ORDER BY id`, sessionID, since, sessionID, since)
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		have[m.ID] = true
	}
	for _, p := range parts {
		if have[p.MessageID] {
			continue
		}
		have[p.MessageID] = true
		m, err := scanMessage(tx.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE id = ?`, p.MessageID))
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, *m)
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].ID < msgs[j].ID })
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].ID < parts[j].ID })
	return joinParts(msgs, parts), nil
}

// queryMessages runs a query selecting messageColumns.
func queryMessages(ctx context.Context, q querier, query string, args ...any) ([]message.Message, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []message.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, *m)
	}
	return list, rows.Err()
}

// joinParts puts each part under its message, in the parts' order.
func joinParts(msgs []message.Message, parts []message.Part) []Entry {
	entries := make([]Entry, len(msgs))
	index := make(map[string]int, len(msgs))
	for i, m := range msgs {
		entries[i].Message = m
		index[m.ID] = i
	}
	for _, p := range parts {
		if i, ok := index[p.MessageID]; ok {
			entries[i].Parts = append(entries[i].Parts, p)
		}
	}
	return entries
}
