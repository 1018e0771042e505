package storage

// memories.go: the facts kept across sessions (issue 34), for a project
// directory or for the user, reached through Store.Memories. The
// contract: a memory is written whole and deleted for real (it is the
// user's note, not part of a session's record); a proposed one is listed
// but neither counted, searched nor sent until accepted; every list is
// oldest first; Search ranks with the index (BM25) and needs only one of
// the query's words.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// ScopeUser is the scope of a memory kept for every project of the user;
// any other scope is a project directory.
const ScopeUser = "user"

// The status of a memory.
const (
	MemoryActive   = "active"
	MemoryProposed = "proposed"
)

// Memory is one fact kept across sessions.
type Memory struct {
	ID string `json:"id"`
	// Scope is ScopeUser or the project's directory.
	Scope  string `json:"scope"`
	Text   string `json:"text"`
	Status string `json:"status"`
	Pinned bool   `json:"pinned"`
	// SessionID and MessageID say where it came from; empty when the user
	// added it by hand.
	SessionID string    `json:"session_id,omitempty"`
	MessageID string    `json:"message_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Memories are the queries of the memories table.
type Memories struct{ s *Store }

// Memories returns the queries of the memories table.
func (s *Store) Memories() Memories { return Memories{s} }

const memoryColumns = `id, scope, text, status, pinned, session_id, message_id, created_at, updated_at`

func scanMemory(r rowScanner) (Memory, error) {
	var m Memory
	var created, updated int64
	if err := r.Scan(&m.ID, &m.Scope, &m.Text, &m.Status, &m.Pinned, &m.SessionID, &m.MessageID, &created, &updated); err != nil {
		return Memory{}, err
	}
	m.CreatedAt, m.UpdatedAt = fromUnix(created), fromUnix(updated)
	return m, nil
}

// Add stores m and fills its ID, status (active unless proposed) and
// times. An empty text or scope is refused.
func (q Memories) Add(ctx context.Context, m *Memory) error {
	op := "add memory"
	m.Text = strings.TrimSpace(m.Text)
	if m.Text == "" {
		return fmt.Errorf("%s: the text is empty", op)
	}
	if m.Scope == "" {
		return fmt.Errorf("%s: no scope", op)
	}
	if err := q.s.writable(op); err != nil {
		return err
	}
	if m.ID == "" {
		m.ID = message.NewID()
	}
	if m.Status != MemoryProposed {
		m.Status = MemoryActive
	}
	m.CreatedAt = now()
	m.UpdatedAt = m.CreatedAt
	_, err := q.s.db.ExecContext(ctx, `INSERT INTO memories (`+memoryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Scope, m.Text, m.Status, m.Pinned, m.SessionID, m.MessageID, toUnix(m.CreatedAt), toUnix(m.UpdatedAt))
	return q.s.fail(op, err)
}

// Get returns one memory; ErrNotFound when there is none.
func (q Memories) Get(ctx context.Context, id string) (Memory, error) {
	m, err := scanMemory(q.reader().QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Memory{}, fmt.Errorf("memory %s: %w", id, ErrNotFound)
	}
	return m, q.s.fail("memory "+id, err)
}

// List returns the memories of the given scopes (all of them when none
// is given), oldest first, proposed ones included.
func (q Memories) List(ctx context.Context, scopes ...string) ([]Memory, error) {
	where, args := scopeFilter(scopes)
	return q.query(ctx, "list memories", `SELECT `+memoryColumns+` FROM memories`+where+` ORDER BY created_at, id`, args...)
}

// Pinned returns the active pinned memories of the scopes, oldest first:
// what a session's prompt carries, read without the rest.
func (q Memories) Pinned(ctx context.Context, scopes ...string) ([]Memory, error) {
	where, args := scopeFilter(scopes)
	return q.query(ctx, "list pinned memories", `SELECT `+memoryColumns+` FROM memories`+where+andOrWhere(where)+
		`status = 'active' AND pinned ORDER BY created_at, id`, args...)
}

// Count is how many active memories the scopes hold.
func (q Memories) Count(ctx context.Context, scopes ...string) (int, error) {
	where, args := scopeFilter(scopes)
	var n int
	err := q.reader().QueryRowContext(ctx, `SELECT count(*) FROM memories`+where+andOrWhere(where)+`status = 'active'`, args...).Scan(&n)
	return n, q.s.fail("count memories", err)
}

// Search returns up to limit active memories of the scopes matching any
// word of query, best first. A query with no words matches nothing.
func (q Memories) Search(ctx context.Context, query string, limit int, scopes ...string) ([]Memory, error) {
	terms := QueryTerms(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	where, args := scopeFilter(scopes)
	where = strings.ReplaceAll(where, "scope", "m.scope")
	args = append([]any{matchExpr(terms, true)}, args...)
	args = append(args, limit)
	return q.query(ctx, "search memories", `SELECT `+prefixed("m.", memoryColumns)+`
		FROM memories_fts f JOIN memories m ON m.rowid = f.rowid
		WHERE memories_fts MATCH ?`+strings.Replace(where, " WHERE ", " AND ", 1)+` AND m.status = 'active'
		ORDER BY f.rank LIMIT ?`, args...)
}

// Edit rewrites a memory's text.
func (q Memories) Edit(ctx context.Context, id, text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return fmt.Errorf("edit memory %s: the text is empty", id)
	}
	return q.exec(ctx, "edit memory "+id, `UPDATE memories SET text = ?, updated_at = ? WHERE id = ?`, text, toUnix(now()), id)
}

// SetPinned pins a memory (sent in every session's system prompt) or
// unpins it.
func (q Memories) SetPinned(ctx context.Context, id string, pinned bool) error {
	return q.exec(ctx, "pin memory "+id, `UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ?`, pinned, toUnix(now()), id)
}

// Accept makes a proposed memory active.
func (q Memories) Accept(ctx context.Context, id string) error {
	return q.exec(ctx, "accept memory "+id, `UPDATE memories SET status = 'active', updated_at = ? WHERE id = ?`, toUnix(now()), id)
}

// Remove deletes a memory.
func (q Memories) Remove(ctx context.Context, id string) error {
	return q.exec(ctx, "remove memory "+id, `DELETE FROM memories WHERE id = ?`, id)
}

// MessageOfCall is the id of the message holding a session's tool call
// (where a remembered fact came from); "" when none does (yet).
func (q Memories) MessageOfCall(ctx context.Context, sessionID, callID string) string {
	var id string
	err := q.reader().QueryRowContext(ctx, `SELECT message_id FROM parts
		WHERE session_id = ? AND type = 'tool' AND json_extract(state, '$.tool.call_id') = ?
		ORDER BY id DESC LIMIT 1`, sessionID, callID).Scan(&id)
	if err != nil {
		return ""
	}
	return id
}

func (q Memories) exec(ctx context.Context, op, query string, args ...any) error {
	if err := q.s.writable(op); err != nil {
		return err
	}
	res, err := q.s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return q.s.fail(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// reader is the connection memories are read through: the writing one of
// a writable store, as ListQueueLatest reads (a session opening counts
// and lists its memories: a one-step `agent run` then opens no reading
// connection, a file open and a parse of the whole schema), the readers
// of a read-only one. No Memories read runs inside a transaction of the
// writer, which would wait for itself.
func (q Memories) reader() querier {
	if q.s.db != nil {
		return q.s.db
	}
	return q.s.rdb
}

func (q Memories) query(ctx context.Context, op, query string, args ...any) ([]Memory, error) {
	rows, err := q.reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, q.s.fail(op, err)
	}
	defer rows.Close()
	var out []Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, q.s.fail(op, err)
		}
		out = append(out, m)
	}
	return out, q.s.fail(op, rows.Err())
}

// scopeFilter is the WHERE clause of a list of scopes ("" for none).
func scopeFilter(scopes []string) (string, []any) {
	if len(scopes) == 0 {
		return "", nil
	}
	args := make([]any, len(scopes))
	for i, s := range scopes {
		args[i] = s
	}
	return " WHERE scope IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(scopes)), ", ") + ")", args
}

func andOrWhere(where string) string {
	if where == "" {
		return " WHERE "
	}
	return " AND "
}
