package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
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
	return s.LogEvents(ctx, sessionID, Event{Kind: kind, Data: data})
}

// Event is one record for LogEvents: its kind and its data, encoded as
// JSON.
type Event struct {
	Kind string
	Data any
}

// LogEvents records events in order, in one transaction: all of them or,
// on an error, none. Records written at the same moment (the loop's after
// a turn) cost one commit instead of one each: pages appended to the WAL
// again, and more for the checkpoint at close to copy.
func (s *Store) LogEvents(ctx context.Context, sessionID string, events ...Event) error {
	kinds := make([]string, len(events))
	for i, e := range events {
		kinds[i] = e.Kind
	}
	op := fmt.Sprintf("log %s event in session %s", strings.Join(kinds, ", "), sessionID)
	if err := s.writable(op); err != nil {
		return err
	}
	data := make([]string, len(events))
	for i, e := range events {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("%s: encode %s data: %w", op, e.Kind, err)
		}
		data[i] = string(b)
	}
	const insert = `INSERT INTO event_log (id, session_id, kind, at, data) VALUES (?, ?, ?, ?, ?)`
	switch len(events) {
	case 0:
		return nil
	case 1: // no BEGIN and COMMIT of its own: one statement is atomic
		_, err := s.db.ExecContext(ctx, insert, message.NewID(), sessionID, events[0].Kind, toUnix(now()), data[0])
		return s.fail(op, err)
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) error {
		at := toUnix(now())
		for i, e := range events {
			if _, err := tx.ExecContext(ctx, insert, message.NewID(), sessionID, e.Kind, at, data[i]); err != nil {
				return err
			}
		}
		return nil
	})
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
