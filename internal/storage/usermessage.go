package storage

// A user message and everything that comes with it in one transaction:
// the message, its parts (indexed for search as UpsertPart would), the
// session's title, and for a new session its row and lease
// (CreateSessionWithMessage). Events follow the commit.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// AddUserMessage stores a new message with its parts and, when title is
// not empty, sets the session's title, in one transaction: the first
// message of a session is one write before its first request, not one for
// the message, one per part and one for the title. It fills the ids and
// times of m and parts like CreateMessage and UpsertPart, and returns the
// session as stored. Events follow the commit: the message, the session,
// then the parts.
func (s *Store) AddUserMessage(ctx context.Context, m *message.Message, parts []*message.Part, title string) (*message.Session, error) {
	if err := s.writable("create message"); err != nil {
		return nil, err
	}
	ts := now()
	stampMessage(m, ts)
	op := "create message " + m.ID
	states, docs, err := prepareParts(op, m, parts, ts)
	if err != nil {
		return nil, err
	}
	var sess *message.Session
	err = s.inTx(ctx, op, func(tx *sql.Tx) (err error) {
		sess, err = s.insertMessage(ctx, tx, m, parts, states, docs, title, ts)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.publishNewMessage(m, sess, parts)
	return sess, nil
}

// CreateSessionWithMessage is CreateSessionLeased and AddUserMessage in
// one transaction: a new session whose row waited for its first message
// (a headless run) is created, leased, titled and given that message in
// one write (the loop makes it beside its first request). It returns the
// session as stored and the lease.
func (s *Store) CreateSessionWithMessage(ctx context.Context, sess *message.Session, m *message.Message,
	parts []*message.Part, title string) (*message.Session, *Lease, error) {
	if err := s.writable("create session"); err != nil {
		return nil, nil, err
	}
	if sess.ID == "" {
		sess.ID = message.NewID()
	}
	m.SessionID = sess.ID
	op := "create session " + sess.ID
	ts := now()
	stampMessage(m, ts)
	states, docs, err := prepareParts(op, m, parts, ts)
	if err != nil {
		return nil, nil, err
	}
	var stored *message.Session
	var l *Lease
	err = s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := insertSession(ctx, tx, sess); err != nil {
			return err
		}
		var err error
		if l, err = s.leaseIn(ctx, tx, sess.ID, false); err != nil {
			return err
		}
		stored, err = s.insertMessage(ctx, tx, m, parts, states, docs, title, ts)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.publishNewMessage(m, stored, parts)
	if l, err = s.holdLease(l, op); err != nil {
		return nil, nil, err
	}
	return stored, l, nil
}

// stampMessage fills a new message's id and times, as of ts, where they
// are empty.
func stampMessage(m *message.Message, ts time.Time) {
	if m.ID == "" {
		m.ID = message.NewID()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = ts
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
}

// publishNewMessage announces a stored message: the message, its session,
// then its parts.
func (s *Store) publishNewMessage(m *message.Message, sess *message.Session, parts []*message.Part) {
	s.publishMessage(m)
	s.publishSession(sess)
	for _, p := range parts {
		s.publishPart(p)
	}
}

// prepareParts fills the ids, session, message and times of a new
// message's parts and encodes each one's state and, for those the history
// index holds, its text.
func prepareParts(op string, m *message.Message, parts []*message.Part, ts time.Time) (states, docs []string, err error) {
	states = make([]string, len(parts))
	docs = make([]string, len(parts))
	for i, p := range parts {
		p.SessionID, p.MessageID = m.SessionID, m.ID
		if p.Type == "" {
			return nil, nil, fmt.Errorf("%s: part %d has no type", op, i)
		}
		if p.ID == "" {
			p.ID = message.NewID()
		}
		if p.CreatedAt.IsZero() {
			p.CreatedAt = ts
		}
		p.UpdatedAt = ts
		if states[i], err = encodeState(p); err != nil {
			return nil, nil, err
		}
		if indexed(p) {
			docs[i] = indexText(p, true)
		}
	}
	return states, docs, nil
}

// insertMessage stores a new message with its parts (prepareParts) in
// tx, indexes them, and touches the session (giving it title when set).
// It returns the session as stored.
func (s *Store) insertMessage(ctx context.Context, tx *sql.Tx, m *message.Message, parts []*message.Part,
	states, docs []string, title string, ts time.Time) (*message.Session, error) {
	var sess *message.Session
	var err error
	if title != "" {
		sess, err = scanSession(tx.QueryRowContext(ctx, `UPDATE sessions SET title = ?, updated_at = ?
			WHERE id = ? RETURNING `+sessionColumns, title, toUnix(ts), m.SessionID))
	} else {
		sess, err = scanSession(tx.QueryRowContext(ctx, `UPDATE sessions SET updated_at = ?
			WHERE id = ? RETURNING `+sessionColumns, toUnix(ts), m.SessionID))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", m.SessionID, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, messageArgs(m)...); err != nil {
		return nil, err
	}
	for i, p := range parts {
		if _, err := tx.StmtContext(ctx, s.upsertPartStmt).ExecContext(ctx, p.ID, p.SessionID, p.MessageID,
			string(p.Type), states[i], toUnix(p.CreatedAt), toUnix(p.UpdatedAt)); err != nil {
			return nil, err
		}
		if indexed(p) {
			if err := indexPart(ctx, tx, p.ID, docs[i]); err != nil {
				return nil, err
			}
		}
	}
	return sess, nil
}
