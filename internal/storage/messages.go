package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
)

const messageColumns = `id, session_id, role, parent_id, summary, synthetic, model,
	finish_reason, error, input_tokens, output_tokens, reasoning_tokens,
	cached_input_tokens, cache_write_tokens, cost_usd, created_at, updated_at, finished_at, rewind_id`

func scanMessage(r rowScanner) (*message.Message, error) {
	var m message.Message
	if err := scanMessageInto(r, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// scanMessageInto scans a row of messageColumns into m, in place.
func scanMessageInto(r rowScanner, m *message.Message) error {
	var summary, synthetic int64 // the driver's type: an int is scanned through its text
	var created, updated, finished int64
	err := r.Scan(&m.ID, &m.SessionID, &m.Role, &m.ParentID, &summary, &synthetic, &m.Model,
		&m.FinishReason, &m.Error, &m.Usage.Input, &m.Usage.Output, &m.Usage.Reasoning,
		&m.Usage.CachedInput, &m.Usage.CacheWrite, &m.CostUSD, &created, &updated, &finished, &m.RewindID)
	if err != nil {
		return err
	}
	m.Summary, m.Synthetic = summary != 0, synthetic != 0
	m.CreatedAt, m.UpdatedAt, m.FinishedAt = fromUnix(created), fromUnix(updated), fromUnix(finished)
	return nil
}

// CreateMessage stores a new message, filling its ID, CreatedAt and
// UpdatedAt when they are empty, and marks its session as updated. Parts
// given are stored with it in the same transaction (filled as UpsertPart
// fills them): a step's assistant message and its step-start part are one
// commit, not two. Events follow the commit: the message, the session,
// then the parts.
func (s *Store) CreateMessage(ctx context.Context, m *message.Message, parts ...*message.Part) error {
	if err := s.writable("create message"); err != nil {
		return err
	}
	ts := now()
	stampMessage(m, ts)
	op := "create message " + m.ID
	states, docs, err := prepareParts(op, m, parts, ts)
	if err != nil {
		return err
	}
	var sess *message.Session
	err = s.inTx(ctx, op, func(tx *sql.Tx) (err error) {
		sess, err = s.insertMessage(ctx, tx, m, parts, states, docs, "", ts)
		return err
	})
	if err != nil {
		return err
	}
	s.publishNewMessage(m, sess, parts)
	return nil
}

func messageArgs(m *message.Message) []any {
	return []any{m.ID, m.SessionID, string(m.Role), m.ParentID, boolInt(m.Summary), boolInt(m.Synthetic), m.Model,
		m.FinishReason, m.Error, m.Usage.Input, m.Usage.Output, m.Usage.Reasoning,
		m.Usage.CachedInput, m.Usage.CacheWrite, m.CostUSD,
		toUnix(m.CreatedAt), toUnix(m.UpdatedAt), toUnix(m.FinishedAt), m.RewindID}
}

// UpdateMessage stores every field of an existing message but its id,
// session, creation time and rewind mark (MarkRewound's alone), and sets
// its UpdatedAt to now.
func (s *Store) UpdateMessage(ctx context.Context, m *message.Message) error {
	op := "update message " + m.ID
	if err := s.writable(op); err != nil {
		return err
	}
	m.UpdatedAt = now()
	if err := updateMessage(ctx, s.db, m); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("update message: message %s: %w", m.ID, ErrNotFound)
		}
		return s.fail(op, err)
	}
	s.publishMessage(m)
	return nil
}

func updateMessage(ctx context.Context, db execer, m *message.Message) error {
	res, err := db.ExecContext(ctx, `UPDATE messages SET role = ?, parent_id = ?, summary = ?,
		synthetic = ?, model = ?, finish_reason = ?, error = ?, input_tokens = ?, output_tokens = ?,
		reasoning_tokens = ?, cached_input_tokens = ?, cache_write_tokens = ?, cost_usd = ?,
		updated_at = ?, finished_at = ? WHERE id = ?`,
		string(m.Role), m.ParentID, boolInt(m.Summary), boolInt(m.Synthetic), m.Model, m.FinishReason, m.Error,
		m.Usage.Input, m.Usage.Output, m.Usage.Reasoning, m.Usage.CachedInput, m.Usage.CacheWrite, m.CostUSD,
		toUnix(m.UpdatedAt), toUnix(m.FinishedAt), m.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// GetMessage returns one message.
func (s *Store) GetMessage(ctx context.Context, id string) (*message.Message, error) {
	m, err := scanMessage(s.rdb.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("get message: message %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("get message "+id, err)
	}
	return m, nil
}

// ListMessages returns a session's messages in order (ids are
// time-ordered).
func (s *Store) ListMessages(ctx context.Context, sessionID string) ([]message.Message, error) {
	list, err := listMessages(ctx, s.rdb, sessionID)
	if err != nil {
		return nil, s.fail("list messages of session "+sessionID, err)
	}
	return list, nil
}

func listMessages(ctx context.Context, q querier, sessionID string) ([]message.Message, error) {
	return queryMessages(ctx, q, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? ORDER BY id`, sessionID)
}

func (s *Store) publishMessage(m *message.Message) {
	c := *m
	s.events.Publish(message.Event{Type: message.EventMessageUpdated, SessionID: c.SessionID, Message: &c})
}
