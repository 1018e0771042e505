package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// LogEntry is one record of a session's event log: a prune, a compaction,
// an estimate compared with the actual usage.
type LogEntry struct {
	ID   string          `json:"id"`
	Kind string          `json:"kind"`
	At   time.Time       `json:"at"`
	Data json.RawMessage `json:"data"`
}

// LogEvent records an event of the given kind with data encoded as JSON.
func (s *Store) LogEvent(ctx context.Context, sessionID, kind string, data any) error {
	op := fmt.Sprintf("log %s event in session %s", kind, sessionID)
	if err := s.writable(op); err != nil {
		return err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("%s: encode data: %w", op, err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO event_log (id, session_id, kind, at, data)
		VALUES (?, ?, ?, ?, ?)`, message.NewID(), sessionID, kind, toUnix(now()), string(b))
	return s.fail(op, err)
}

// ListEventLog returns a session's event log, oldest first.
func (s *Store) ListEventLog(ctx context.Context, sessionID string) ([]LogEntry, error) {
	return s.listEventLog(ctx, "list event log of session "+sessionID, `SELECT id, kind, at, data FROM event_log
		WHERE session_id = ? ORDER BY id`, sessionID)
}

// ListEventLogKind returns a session's event log entries of one kind, in
// order: what Open needs of a long session's log (its context-limit
// refusals) without reading every estimate record.
func (s *Store) ListEventLogKind(ctx context.Context, sessionID, kind string) ([]LogEntry, error) {
	return s.listEventLog(ctx, "list "+kind+" events of session "+sessionID, `SELECT id, kind, at, data FROM event_log
		WHERE session_id = ? AND kind = ? ORDER BY id`, sessionID, kind)
}

// listEventLog reads through the writing connection of a writable store,
// as ListQueueLatest does: the loop reads a session's log while it runs
// (its first suspect usage report, its context-limit refusals at Open),
// and a one-step `agent run` then opens no reading connection. A
// read-only store (agent inspect) reads through its readers.
func (s *Store) listEventLog(ctx context.Context, op, query string, args ...any) ([]LogEntry, error) {
	var q querier = s.db
	if s.db == nil {
		q = s.rdb
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var log []LogEntry
	for rows.Next() {
		var e LogEntry
		var at int64
		var data string
		if err := rows.Scan(&e.ID, &e.Kind, &at, &data); err != nil {
			return nil, s.fail(op, err)
		}
		e.At, e.Data = fromUnix(at), json.RawMessage(data)
		log = append(log, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return log, nil
}
