package storage

// The transaction and the query interfaces every file of the package uses:
// inTx is the one way a write runs (a write transaction, committed, its
// errors wrapped with the operation and ErrLocked for a lock held too
// long); querier, execer and rowScanner are what a helper takes so that it
// runs on the read pool, the writer or inside a transaction alike.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// inTx runs fn in a write transaction and commits it. Errors are wrapped
// with op.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return s.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(dest ...any) error }

// requireSession returns ErrNotFound, wrapped, when the session does not
// exist.
func requireSession(ctx context.Context, q querier, sessionID string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	return err
}
