package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
)

// Delivery is exactly-once: DeliverQueued removes the queued messages it
// delivers and stores the user message made of them in one transaction,
// so a crash leaves either the queue as it was or the message, never both
// and never neither. Cancel's TakeQueue and a delivery race on the same
// rows; whichever commits first has them, and the other gets
// ErrQueueChanged (a delivery) or does not see them (a take).

// ErrQueueChanged is returned by DeliverQueued when a message it was to
// deliver is no longer queued (taken back by a cancel or the user).
var ErrQueueChanged = errors.New("the queue changed")

// SetQueuedKind makes a queued message steer the running turn or wait for
// the turn to end.
func (s *Store) SetQueuedKind(ctx context.Context, id string, kind message.QueueKind) error {
	op := "set kind of queued message " + id
	if err := s.writable(op); err != nil {
		return err
	}
	if !kind.Valid() {
		return fmt.Errorf("%s: unknown kind %q", op, kind)
	}
	return s.updateQueued(ctx, op, id, "kind", string(kind))
}

// DeliverQueued removes the queued messages ids from m's session and
// stores m with its parts, in one transaction. It fails with
// ErrQueueChanged, storing nothing, when any of ids is no longer queued.
// It fills the ids and times of m and parts like CreateMessage and
// UpsertPart.
func (s *Store) DeliverQueued(ctx context.Context, ids []string, m *message.Message, parts []*message.Part) error {
	op := "deliver queued messages of session " + m.SessionID
	if err := s.writable(op); err != nil {
		return err
	}
	ts := now()
	stampMessage(m, ts)
	states, docs, err := prepareParts(op, m, parts, ts)
	if err != nil {
		return err
	}
	var queue []message.QueuedMessage
	var sess *message.Session
	err = s.inTx(ctx, op, func(tx *sql.Tx) error {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, `DELETE FROM queue WHERE id = ? AND session_id = ?`, id, m.SessionID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return fmt.Errorf("queued message %s: %w", id, ErrQueueChanged)
			}
		}
		var err error
		if queue, err = listQueue(ctx, tx, m.SessionID); err != nil {
			return err
		}
		for i := range queue {
			if queue[i].Position != i {
				queue[i].Position = i
				if _, err := tx.ExecContext(ctx, `UPDATE queue SET position = ? WHERE id = ?`, i, queue[i].ID); err != nil {
					return err
				}
			}
		}
		sess, err = s.insertMessage(ctx, tx, m, parts, states, docs, "", ts)
		return err
	})
	if err != nil {
		return err
	}
	s.publishQueue(m.SessionID, queue)
	s.publishNewMessage(m, sess, parts)
	return nil
}
