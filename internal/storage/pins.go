package storage

// pins.go: the facts a user pinned to a session (message.Pin). Editing a
// pin rewrites its text; removing one stamps it removed — nothing is
// deleted, like the rest of a session's record.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

const pinColumns = `id, session_id, text, message_id, created_at, updated_at, removed_at`

func scanPin(r rowScanner) (*message.Pin, error) {
	var p message.Pin
	var created, updated, removed int64
	if err := r.Scan(&p.ID, &p.SessionID, &p.Text, &p.MessageID, &created, &updated, &removed); err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt, p.RemovedAt = fromUnix(created), fromUnix(updated), fromUnix(removed)
	return &p, nil
}

// AddPin stores a new pin of p.SessionID and fills its ID and times. An
// empty text is refused.
func (s *Store) AddPin(ctx context.Context, p *message.Pin) error {
	op := "add pin to session " + p.SessionID
	if strings.TrimSpace(p.Text) == "" {
		return fmt.Errorf("%s: the text is empty", op)
	}
	if err := s.writable(op); err != nil {
		return err
	}
	if p.ID == "" {
		p.ID = message.NewID()
	}
	p.CreatedAt = now()
	p.UpdatedAt = p.CreatedAt
	_, err := s.db.ExecContext(ctx, `INSERT INTO pins (`+pinColumns+`)
		SELECT ?, id, ?, ?, ?, ?, 0 FROM sessions WHERE id = ?`,
		p.ID, p.Text, p.MessageID, toUnix(p.CreatedAt), toUnix(p.UpdatedAt), p.SessionID)
	if err != nil {
		return s.fail(op, err)
	}
	if _, err := s.pin(ctx, p.ID); errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: session %s: %w", op, p.SessionID, ErrNotFound)
	}
	return nil
}

func (s *Store) pin(ctx context.Context, id string) (*message.Pin, error) {
	return scanPin(s.db.QueryRowContext(ctx, `SELECT `+pinColumns+` FROM pins WHERE id = ?`, id))
}

// ListPins returns a session's pins, oldest first, without the removed
// ones.
func (s *Store) ListPins(ctx context.Context, sessionID string) ([]message.Pin, error) {
	rows, err := openReader(s).QueryContext(ctx, `SELECT `+pinColumns+` FROM pins
		WHERE session_id = ? AND removed_at = 0 ORDER BY id`, sessionID)
	if err != nil {
		return nil, s.fail("list pins of session "+sessionID, err)
	}
	defer rows.Close()
	var out []message.Pin
	for rows.Next() {
		p, err := scanPin(rows)
		if err != nil {
			return nil, s.fail("list pins of session "+sessionID, err)
		}
		out = append(out, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list pins of session "+sessionID, err)
	}
	return out, nil
}

// UpdatePin rewrites the text of a pin that is not removed.
func (s *Store) UpdatePin(ctx context.Context, id, text string) error {
	op := "edit pin " + id
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%s: the text is empty", op)
	}
	return s.execPin(ctx, op, `UPDATE pins SET text = ?, updated_at = ? WHERE id = ? AND removed_at = 0`,
		text, toUnix(now()), id)
}

// RemovePin stamps a pin removed: it is no longer listed nor sent.
func (s *Store) RemovePin(ctx context.Context, id string) error {
	ts := toUnix(now())
	return s.execPin(ctx, "remove pin "+id, `UPDATE pins SET removed_at = ?, updated_at = ? WHERE id = ? AND removed_at = 0`,
		ts, ts, id)
}

func (s *Store) execPin(ctx context.Context, op, query string, args ...any) error {
	if err := s.writable(op); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return s.fail(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}
