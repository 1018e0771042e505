package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

// minPrefixLen is the shortest id prefix GetSession accepts.
const minPrefixLen = 6

// sessionInsertColumns are the columns a new session row is written
// with; sessionColumns, what scanSession reads (a child session's parent
// included).
const (
	sessionInsertColumns = `id, title, model, dir, created_at, updated_at,
	input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, cache_write_tokens, cost_usd, parent_id`
	sessionColumns = `id, title, model, dir, created_at, updated_at,
	input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, cache_write_tokens, cost_usd,
	coalesce(parent_id, '')`
)

func scanSession(r rowScanner) (*message.Session, error) {
	var sess message.Session
	var created, updated int64
	err := r.Scan(&sess.ID, &sess.Title, &sess.Model, &sess.Dir, &created, &updated,
		&sess.Usage.Input, &sess.Usage.Output, &sess.Usage.Reasoning,
		&sess.Usage.CachedInput, &sess.Usage.CacheWrite, &sess.CostUSD, &sess.ParentID)
	if err != nil {
		return nil, err
	}
	sess.CreatedAt, sess.UpdatedAt = fromUnix(created), fromUnix(updated)
	return &sess, nil
}

// CreateSession stores a new session, filling its ID, CreatedAt and
// UpdatedAt when they are empty. A session with a ParentID is a child of
// that session (a subagent's, started by the task tool): lists leave it
// out and removing the parent removes it.
func (s *Store) CreateSession(ctx context.Context, sess *message.Session) error {
	if err := s.writable("create session"); err != nil {
		return err
	}
	if err := insertSession(ctx, s.db, sess); err != nil {
		return s.fail("create session "+sess.ID, err)
	}
	s.publishSession(sess)
	return nil
}

// CreateSessionLeased is CreateSession and AcquireLease in one
// transaction: a new session's start writes once before its first
// request, and no other process can take it in between.
func (s *Store) CreateSessionLeased(ctx context.Context, sess *message.Session) (*Lease, error) {
	if err := s.writable("create session"); err != nil {
		return nil, err
	}
	var l *Lease
	err := s.inTx(ctx, "create session", func(tx *sql.Tx) error {
		if err := insertSession(ctx, tx, sess); err != nil {
			return err
		}
		var err error
		l, err = s.leaseIn(ctx, tx, sess.ID, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.publishSession(sess)
	return s.holdLease(l, "create session "+sess.ID)
}

// insertSession inserts sess, filling its ID and times when empty.
func insertSession(ctx context.Context, q execer, sess *message.Session) error {
	if sess.ID == "" {
		sess.ID = message.NewID()
	}
	ts := now()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = ts
	}
	if sess.UpdatedAt.IsZero() {
		sess.UpdatedAt = sess.CreatedAt
	}
	var parent any // NULL for a top-level session
	if sess.ParentID != "" {
		parent = sess.ParentID
	}
	_, err := q.ExecContext(ctx, `INSERT INTO sessions (`+sessionInsertColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sess.ID, sess.Title, sess.Model, sess.Dir, toUnix(sess.CreatedAt), toUnix(sess.UpdatedAt),
		sess.Usage.Input, sess.Usage.Output, sess.Usage.Reasoning,
		sess.Usage.CachedInput, sess.Usage.CacheWrite, sess.CostUSD, parent)
	return err
}

// GetSession returns the session with the given id, or with the only id
// starting with it when at least six characters are given (case is
// ignored, as ids are upper case).
func (s *Store) GetSession(ctx context.Context, id string) (*message.Session, error) {
	sess, err := scanSession(openReader(s).QueryRowContext(ctx, // openreads.go
		`SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, s.fail("get session "+id, err)
	}
	if len(id) < minPrefixLen {
		return nil, fmt.Errorf("get session: session %s: %w", id, ErrNotFound)
	}
	prefix := strings.ToUpper(id)
	// Ids are ASCII below 0x7f, so this range is exactly the ids with the prefix.
	rows, err := openReader(s).QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, prefix, prefix+"\x7f")
	if err != nil {
		return nil, s.fail("get session "+id, err)
	}
	defer rows.Close()
	var found []*message.Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, s.fail("get session "+id, err)
		}
		found = append(found, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("get session "+id, err)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("get session: session %s: %w", id, ErrNotFound)
	case 1:
		return found[0], nil
	default:
		return nil, fmt.Errorf("get session: %q matches %s, %s…: %w", id, found[0].ID, found[1].ID, ErrAmbiguousID)
	}
}

// UpdateSession stores the session's title and model and sets its
// UpdatedAt to now. sess is refreshed from the stored row (usage
// included).
func (s *Store) UpdateSession(ctx context.Context, sess *message.Session) error {
	if err := s.writable("update session"); err != nil {
		return err
	}
	updated, err := scanSession(s.db.QueryRowContext(ctx, `UPDATE sessions
		SET title = ?, model = ?, updated_at = ? WHERE id = ? RETURNING `+sessionColumns,
		sess.Title, sess.Model, toUnix(now()), sess.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("update session: session %s: %w", sess.ID, ErrNotFound)
	}
	if err != nil {
		return s.fail("update session "+sess.ID, err)
	}
	*sess = *updated
	s.publishSession(updated)
	return nil
}

// AddSessionUsage adds one call's usage and cost to the session's
// cumulative totals.
func (s *Store) AddSessionUsage(ctx context.Context, id string, u message.Usage, costUSD float64) error {
	if err := s.writable("add session usage"); err != nil {
		return err
	}
	updated, err := scanSession(s.db.QueryRowContext(ctx, `UPDATE sessions SET
		input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
		reasoning_tokens = reasoning_tokens + ?, cached_input_tokens = cached_input_tokens + ?,
		cache_write_tokens = cache_write_tokens + ?, cost_usd = cost_usd + ?, updated_at = ?
		WHERE id = ? RETURNING `+sessionColumns,
		u.Input, u.Output, u.Reasoning, u.CachedInput, u.CacheWrite, costUSD, toUnix(now()), id))
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("add session usage: session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return s.fail("add session usage "+id, err)
	}
	s.publishSession(updated)
	return nil
}

// ListSessions returns the sessions of directory dir (every session when
// dir is empty), most recently updated first. Child sessions are left
// out: they belong to their parent (ChildSessions lists them).
func (s *Store) ListSessions(ctx context.Context, dir string) ([]message.Session, error) {
	return s.listSessions(ctx, "list sessions", dir, -1)
}

// LatestSession returns the most recently updated session of directory dir
// (of any directory when dir is empty), or ErrNotFound. A child session is
// never the latest: continuing one is continuing its parent.
func (s *Store) LatestSession(ctx context.Context, dir string) (*message.Session, error) {
	list, err := s.listSessions(ctx, "latest session", dir, 1)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		if dir == "" {
			return nil, fmt.Errorf("latest session: no session: %w", ErrNotFound)
		}
		return nil, fmt.Errorf("latest session: no session in %s: %w", dir, ErrNotFound)
	}
	return &list[0], nil
}

func (s *Store) listSessions(ctx context.Context, op, dir string, limit int) ([]message.Session, error) {
	query := `SELECT ` + sessionColumns + ` FROM sessions WHERE parent_id IS NULL`
	args := []any{}
	if dir != "" {
		query += ` AND dir = ?`
		args = append(args, dir)
	}
	query += ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	args = append(args, limit)
	return s.querySessions(ctx, op, query, args...)
}

// ChildSessions returns the sessions parentID started (its subagents'),
// oldest first.
func (s *Store) ChildSessions(ctx context.Context, parentID string) ([]message.Session, error) {
	return s.querySessions(ctx, "list child sessions of "+parentID,
		`SELECT `+sessionColumns+` FROM sessions WHERE parent_id = ? ORDER BY created_at, id`, parentID)
}

func (s *Store) querySessions(ctx context.Context, op, query string, args ...any) ([]message.Session, error) {
	rows, err := openReader(s).QueryContext(ctx, query, args...) // openreads.go
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var list []message.Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, s.fail(op, err)
		}
		list = append(list, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return list, nil
}

// DeleteSession deletes a session with its messages, parts, queue, lease
// and event log, and its child sessions with theirs. A session driven by
// another live process is not deleted (ErrSessionBusy).
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	op := "delete session " + id
	if err := s.writable(op); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	defer tx.Rollback()
	if err := s.checkNotDrivenElsewhere(ctx, tx, op, id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return s.fail(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete session: session %s: %w", id, ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	s.events.Publish(message.Event{Type: message.EventSessionDeleted, SessionID: id})
	return nil
}

// SessionStats counts what a session holds, for the inspector.
type SessionStats struct {
	Messages       int `json:"messages"`
	Parts          int `json:"parts"`
	CompactedParts int `json:"compacted_parts"`
	TruncatedParts int `json:"truncated_parts"`
	Summaries      int `json:"summaries"`
}

// SessionStats returns the counts of a session's messages, parts, pruned
// (compacted) and truncated tool outputs, and summaries.
func (s *Store) SessionStats(ctx context.Context, id string) (SessionStats, error) {
	var st SessionStats
	var exists int
	err := s.rdb.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM sessions WHERE id = ?1),
		(SELECT count(*) FROM messages WHERE session_id = ?1),
		(SELECT count(*) FROM parts WHERE session_id = ?1),
		(SELECT count(*) FROM parts WHERE session_id = ?1 AND type = 'tool'
			AND json_extract(state, '$.tool.compacted_at') IS NOT NULL),
		(SELECT count(*) FROM parts WHERE session_id = ?1 AND type = 'tool'
			AND json_extract(state, '$.tool.truncated') = 1),
		(SELECT count(*) FROM messages WHERE session_id = ?1 AND summary = 1)`, id).
		Scan(&exists, &st.Messages, &st.Parts, &st.CompactedParts, &st.TruncatedParts, &st.Summaries)
	if err != nil {
		return SessionStats{}, s.fail("session stats "+id, err)
	}
	if exists == 0 {
		return SessionStats{}, fmt.Errorf("session stats: session %s: %w", id, ErrNotFound)
	}
	return st, nil
}

// MessageCounts returns how many messages each session of directory dir
// (of every directory when dir is empty) has, in one query; sessions
// without messages are absent.
func (s *Store) MessageCounts(ctx context.Context, dir string) (map[string]int, error) {
	query := `SELECT m.session_id, count(*) FROM messages m`
	var args []any
	if dir != "" {
		query += ` JOIN sessions s ON s.id = m.session_id WHERE s.dir = ?`
		args = append(args, dir)
	}
	rows, err := s.rdb.QueryContext(ctx, query+` GROUP BY m.session_id`, args...)
	if err != nil {
		return nil, s.fail("count messages", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, s.fail("count messages", err)
		}
		counts[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("count messages", err)
	}
	return counts, nil
}

func (s *Store) publishSession(sess *message.Session) {
	c := *sess
	s.events.Publish(message.Event{Type: message.EventSessionUpdated, SessionID: c.ID, Session: &c})
}
