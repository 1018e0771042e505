package storage

// The writer's statement cache. SQLite parses a statement's text each time
// it is prepared, and database/sql prepares anew for every Exec and Query
// given text; a one-step `agent run` ran the same few statements (a
// message's insert, a part's indexing, the memories' count and list) two
// or three times each, every time parsed again. The cache prepares such a
// statement once on the writer (database/sql keeps it prepared on the one
// connection) and hands it to every later use:
//
//   - outside a transaction, reads and writes on the writer take the
//     statement with stmt, which prepares it on first use;
//   - inside a transaction (which holds the writer's one connection: a
//     prepare on the DB would wait for it forever) a write takes it with
//     inTx, which binds an already-prepared statement to the transaction
//     (tx.StmtContext finds it prepared on the connection) and otherwise
//     says so, and the caller runs the text as before. warm, called before
//     the transaction begins, prepares the statements a write will use.
//
// The cache never holds its lock while preparing (a prepare may wait for
// the connection, and the transaction holding it may look a statement up).

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// maxCachedStmts bounds the cache: the memories' reads vary with their
// scopes and search terms; past the bound a query runs as text.
const maxCachedStmts = 64

var errCacheFull = errors.New("statement cache full")

type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	done  bool // closed: nothing more is prepared
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: make(map[string]*sql.Stmt)}
}

// lookup is the prepared statement of query, nil if none.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

// stmt is query prepared on the writer, prepared now if it was not. It
// must not be called inside a transaction of the writer.
func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := c.lookup(query); st != nil {
		return st, nil
	}
	c.mu.Lock()
	full := len(c.stmts) >= maxCachedStmts
	c.mu.Unlock()
	if full {
		return nil, errCacheFull
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if had, ok := c.stmts[query]; ok || c.done {
		st.Close() // another goroutine was first, or the store closed
		if ok {
			return had, nil
		}
		return nil, errors.New("store is closed")
	}
	c.stmts[query] = st
	return st, nil
}

// warm prepares the queries not yet prepared, best effort: a query that
// fails to prepare here runs as text later and reports its error there.
func (c *stmtCache) warm(ctx context.Context, queries ...string) {
	if c == nil {
		return
	}
	for _, q := range queries {
		_, _ = c.stmt(context.WithoutCancel(ctx), q)
	}
}

// inTx is query's prepared statement bound to tx, nil when it is not
// prepared (the caller runs the text).
func (c *stmtCache) inTx(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	if st := c.lookup(query); st != nil {
		return tx.StmtContext(ctx, st)
	}
	return nil
}

// exec runs query in tx, prepared if it is.
func (c *stmtCache) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := c.inTx(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// queryRow runs query in tx, prepared if it is.
func (c *stmtCache) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := c.inTx(ctx, tx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// close closes the statements; the cache prepares nothing more.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	var errs []error
	for q, st := range c.stmts {
		errs = append(errs, st.Close())
		delete(c.stmts, q)
	}
	return errors.Join(errs...)
}

// cachedReader is a querier on the writer whose statements come from the
// cache (Memories' reads: none runs inside a transaction of the writer).
type cachedReader struct{ c *stmtCache }

// A query the cache cannot prepare runs as text: a full cache, or an
// error the text reports again.
func (r cachedReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := r.c.stmt(ctx, query)
	if err != nil {
		return r.c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (r cachedReader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := r.c.stmt(ctx, query)
	if err != nil {
		return r.c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
