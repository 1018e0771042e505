package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
)

// The queue holds user input typed while a session's loop is busy, in
// positions 0, 1, 2… Every change publishes EventQueueChanged with the
// whole queue as it is after the change.

// Enqueue appends text to a session's queue, steering the running turn.
func (s *Store) Enqueue(ctx context.Context, sessionID, text string) (*message.QueuedMessage, error) {
	return s.EnqueueKind(ctx, sessionID, text, message.KindSteer)
}

// EnqueueKind appends text to a session's queue as a steering message or
// one queued for after the turn, with images attached (each from the
// attachment store).
func (s *Store) EnqueueKind(ctx context.Context, sessionID, text string, kind message.QueueKind, images ...*message.FileState) (*message.QueuedMessage, error) {
	op := "enqueue in session " + sessionID
	if err := s.writable(op); err != nil {
		return nil, err
	}
	if !kind.Valid() {
		return nil, fmt.Errorf("%s: unknown kind %q", op, kind)
	}
	q := &message.QueuedMessage{ID: message.NewID(), SessionID: sessionID, Text: text, CreatedAt: now(), Kind: kind, Images: images}
	imagesJSON, err := encodeImages(images)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var queue []message.QueuedMessage
	err = s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(position) + 1, 0) FROM queue
			WHERE session_id = ?`, sessionID).Scan(&q.Position); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO queue (id, session_id, text, position, created_at, kind, images)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, q.ID, q.SessionID, q.Text, q.Position, toUnix(q.CreatedAt), string(q.Kind), imagesJSON); err != nil {
			return err
		}
		var err error
		queue, err = listQueue(ctx, tx, sessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.publishQueue(sessionID, queue)
	return q, nil
}

// ListQueue returns a session's queue by position.
func (s *Store) ListQueue(ctx context.Context, sessionID string) ([]message.QueuedMessage, error) {
	queue, err := listQueue(ctx, s.rdb, sessionID)
	if err != nil {
		return nil, s.fail("list queue of session "+sessionID, err)
	}
	return queue, nil
}

// ListQueueLatest is ListQueue read through the writing connection: what a
// session's runner reads between steps. It sees the same rows — what this
// process and any other committed — and a run that only writes never opens
// a reading connection (each costs a file open and a parse of the whole
// schema, on the way to a headless run's first request). A read-only store
// reads as ListQueue does.
func (s *Store) ListQueueLatest(ctx context.Context, sessionID string) ([]message.QueuedMessage, error) {
	var q querier = s.db
	if s.db == nil {
		q = s.rdb
	}
	queue, err := listQueue(ctx, q, sessionID)
	if err != nil {
		return nil, s.fail("list queue of session "+sessionID, err)
	}
	return queue, nil
}

// UpdateQueued replaces the text of a queued message.
func (s *Store) UpdateQueued(ctx context.Context, id, text string) error {
	op := "update queued message " + id
	if err := s.writable(op); err != nil {
		return err
	}
	return s.updateQueued(ctx, op, id, "text", text)
}

// updateQueued sets one column of the queued message id and publishes the
// session's queue.
func (s *Store) updateQueued(ctx context.Context, op, id, column string, value any) error {
	var sessionID string
	var queue []message.QueuedMessage
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `UPDATE queue SET `+column+` = ? WHERE id = ? RETURNING session_id`,
			value, id).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("queued message %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		queue, err = listQueue(ctx, tx, sessionID)
		return err
	})
	if err != nil {
		return err
	}
	s.publishQueue(sessionID, queue)
	return nil
}

// RemoveQueued deletes a queued message; those after it move up.
func (s *Store) RemoveQueued(ctx context.Context, id string) error {
	op := "remove queued message " + id
	if err := s.writable(op); err != nil {
		return err
	}
	var sessionID string
	var queue []message.QueuedMessage
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		var position int
		err := tx.QueryRowContext(ctx, `DELETE FROM queue WHERE id = ? RETURNING session_id, position`,
			id).Scan(&sessionID, &position)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("queued message %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE queue SET position = position - 1
			WHERE session_id = ? AND position > ?`, sessionID, position); err != nil {
			return err
		}
		queue, err = listQueue(ctx, tx, sessionID)
		return err
	})
	if err != nil {
		return err
	}
	s.publishQueue(sessionID, queue)
	return nil
}

// MoveQueued moves a queued message to position (clamped to the queue),
// shifting the others.
func (s *Store) MoveQueued(ctx context.Context, id string, position int) error {
	op := "move queued message " + id
	if err := s.writable(op); err != nil {
		return err
	}
	var sessionID string
	var queue []message.QueuedMessage
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT session_id FROM queue WHERE id = ?`, id).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("queued message %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		current, err := listQueue(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		queue = moveQueued(current, id, position)
		for i := range queue {
			if queue[i].Position == i {
				continue
			}
			queue[i].Position = i
			if _, err := tx.ExecContext(ctx, `UPDATE queue SET position = ? WHERE id = ?`, i, queue[i].ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.publishQueue(sessionID, queue)
	return nil
}

// moveQueued returns the queue with message id moved to position, clamped
// to [0, len-1]; positions are not renumbered.
func moveQueued(queue []message.QueuedMessage, id string, position int) []message.QueuedMessage {
	from := -1
	for i, q := range queue {
		if q.ID == id {
			from = i
		}
	}
	if from < 0 {
		return queue
	}
	position = max(0, min(position, len(queue)-1))
	moved := queue[from]
	rest := append(append([]message.QueuedMessage{}, queue[:from]...), queue[from+1:]...)
	out := make([]message.QueuedMessage, 0, len(queue))
	out = append(out, rest[:position]...)
	out = append(out, moved)
	return append(out, rest[position:]...)
}

// TakeQueue removes and returns a session's whole queue, in order, in one
// transaction: what it returns is exactly what it removed.
func (s *Store) TakeQueue(ctx context.Context, sessionID string) ([]message.QueuedMessage, error) {
	op := "take queue of session " + sessionID
	if err := s.writable(op); err != nil {
		return nil, err
	}
	var taken []message.QueuedMessage
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		var err error
		if taken, err = listQueue(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM queue WHERE session_id = ?`, sessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(taken) > 0 {
		s.publishQueue(sessionID, nil)
	}
	return taken, nil
}

func listQueue(ctx context.Context, q querier, sessionID string) ([]message.QueuedMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, session_id, text, position, created_at, kind, images FROM queue
		WHERE session_id = ? ORDER BY position, id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var queue []message.QueuedMessage
	for rows.Next() {
		var m message.QueuedMessage
		var created int64
		var images string
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Text, &m.Position, &created, &m.Kind, &images); err != nil {
			return nil, err
		}
		if images != "" {
			if err := json.Unmarshal([]byte(images), &m.Images); err != nil {
				return nil, fmt.Errorf("queued message %s: images: %w", m.ID, err)
			}
		}
		m.CreatedAt = fromUnix(created)
		queue = append(queue, m)
	}
	return queue, rows.Err()
}

// encodeImages is the images column of a queued message: ” for none.
func encodeImages(images []*message.FileState) (string, error) {
	if len(images) == 0 {
		return "", nil
	}
	for _, f := range images {
		if f == nil || f.Kind != message.AttachImage || f.Store == "" {
			return "", errors.New("an image not from the attachment store")
		}
	}
	b, err := json.Marshal(images)
	return string(b), err
}

func (s *Store) publishQueue(sessionID string, queue []message.QueuedMessage) {
	s.events.Publish(message.Event{Type: message.EventQueueChanged, SessionID: sessionID, Queue: queue})
}
