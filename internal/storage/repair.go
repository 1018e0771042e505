package storage

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// InterruptedError is the Error given to an assistant message that a crash
// or a cancel left without a finish reason.
const InterruptedError = "interrupted"

// Repair counts what RepairSession fixed.
type Repair struct {
	// Tools is the number of pending or running tool parts turned into
	// interrupted errors.
	Tools int `json:"tools"`
	// Messages is the number of unfinished assistant messages closed.
	Messages int `json:"messages"`
	// Streams is the number of text streams whose flushed deltas were
	// folded into their part.
	Streams int `json:"streams"`
}

// IsZero reports whether nothing needed repair.
func (r Repair) IsZero() bool { return r == Repair{} }

// RepairSession fixes what a crash left in a session, in one transaction:
// pending and running tool parts become errors with
// message.InterruptedOutput; unfinished text streams get their flushed
// deltas as final text; unfinished assistant messages are finished, with
// Error InterruptedError when they had no finish reason. Call it only while
// holding the session's lease (or when nobody does): it refuses with
// ErrSessionBusy when another live process drives the session.
func (s *Store) RepairSession(ctx context.Context, sessionID string) (Repair, error) {
	op := "repair session " + sessionID
	if err := s.writable(op); err != nil {
		return Repair{}, err
	}
	var r Repair
	var parts []*message.Part
	var msgs []*message.Message
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := s.checkNotDrivenElsewhere(ctx, tx, op, sessionID); err != nil {
			return err
		}
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		r, parts, msgs, err = repairIn(ctx, tx, sessionID, true)
		return err
	})
	if err != nil {
		return Repair{}, err
	}
	publishRepaired(s, parts, msgs)
	return r, nil
}

// repairIn repairs sessionID's unfinished streams, tool parts (unless
// tools is false: the caller found none) and messages in tx, and returns
// what it changed, for publishRepaired once tx commits.
func repairIn(ctx context.Context, tx *sql.Tx, sessionID string, tools bool) (r Repair, parts []*message.Part, msgs []*message.Message, err error) {
	ts := now()
	streamed, err := repairStreams(ctx, tx, sessionID, ts)
	if err != nil {
		return r, nil, nil, err
	}
	r.Streams = len(streamed)
	parts = streamed
	if tools {
		fixed, err := repairTools(ctx, tx, sessionID, ts)
		if err != nil {
			return r, nil, nil, err
		}
		r.Tools = len(fixed)
		parts = append(parts, fixed...)
	}
	msgs, err = repairMessages(ctx, tx, sessionID, ts)
	r.Messages = len(msgs)
	return r, parts, msgs, err
}

// publishRepaired publishes what a committed repair changed, the parts in
// id order.
func publishRepaired(s *Store, parts []*message.Part, msgs []*message.Message) {
	sort.Slice(parts, func(i, j int) bool { return parts[i].ID < parts[j].ID })
	for _, p := range parts {
		s.publishPart(p)
	}
	for _, m := range msgs {
		s.publishMessage(m)
	}
}

// repairStreams folds each unfinished stream's delta rows into its part.
func repairStreams(ctx context.Context, tx *sql.Tx, sessionID string, ts time.Time) ([]*message.Part, error) {
	deltas, err := sessionDeltas(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(deltas))
	for id := range deltas {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var fixed []*message.Part
	for _, id := range ids {
		p, err := scanPart(tx.QueryRowContext(ctx, `SELECT `+partColumns+` FROM parts WHERE id = ?`, id))
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM part_deltas WHERE part_id = ?`, id); err != nil {
			return nil, err
		}
		p.Text += deltas[id]
		p.UpdatedAt = ts
		if err := writeState(ctx, tx, p); err != nil {
			return nil, err
		}
		if err := indexIfFinal(ctx, tx, p); err != nil {
			return nil, err
		}
		fixed = append(fixed, p)
	}
	return fixed, nil
}

// unfinishedTools returns the session's pending and running tool parts,
// which RepairSession would mark interrupted: Open stops what they may
// have left running first (AcquireRepaired returns them).
func unfinishedTools(ctx context.Context, q querier, sessionID string) ([]*message.Part, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+partColumns+` FROM parts
		WHERE session_id = ? AND type = 'tool'
		AND json_extract(state, '$.tool.status') IN ('pending', 'running') ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	var fixed []*message.Part
	for rows.Next() {
		p, err := scanPart(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		fixed = append(fixed, p)
	}
	rows.Close()
	return fixed, rows.Err()
}

// repairTools turns the session's pending and running tool parts into
// interrupted errors.
func repairTools(ctx context.Context, tx *sql.Tx, sessionID string, ts time.Time) ([]*message.Part, error) {
	fixed, err := unfinishedTools(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	for _, p := range fixed {
		p.Tool.Status = message.ToolError
		p.Tool.Output = message.InterruptedOutput
		p.Tool.EndedAt = ts
		p.UpdatedAt = ts
		if err := writeState(ctx, tx, p); err != nil {
			return nil, err
		}
		if err := indexIfFinal(ctx, tx, p); err != nil {
			return nil, err
		}
	}
	return fixed, nil
}

// repairMessages finishes the session's unfinished assistant messages.
func repairMessages(ctx context.Context, tx *sql.Tx, sessionID string, ts time.Time) ([]*message.Message, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND role = ? AND finished_at = 0 ORDER BY id`,
		sessionID, string(message.RoleAssistant))
	if err != nil {
		return nil, err
	}
	var fixed []*message.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		fixed = append(fixed, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, m := range fixed {
		m.FinishedAt, m.UpdatedAt = ts, ts
		if m.FinishReason == "" && m.Error == "" {
			m.Error = InterruptedError
		}
		if err := updateMessage(ctx, tx, m); err != nil {
			return nil, fmt.Errorf("finish message %s: %w", m.ID, err)
		}
	}
	return fixed, nil
}
