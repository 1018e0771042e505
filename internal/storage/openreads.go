package storage

// openreads.go: the reads a session's open makes go through the writing
// connection of a writable store (issue 36, resume7), as ListQueueLatest,
// Memories and the event log's reads already do. They are the latest
// session (LatestSession, the other session lists), the session itself
// (GetSession), its pins (ListPins) and, in a store opted in by
// Window.ThroughWriter (agent run's: one session), its window
// (Window.Load): a run that resumes a session then opens no reading
// connection — the
// database's file opened a second time, its WAL index mapped and the
// whole schema parsed once more, ≈ 3 ms of the ≈ 38 ms of CPU a resumed
// `agent run -c` took on a 100,000-part session (perf stat, 20 runs
// alternated). Contract: these reads see what the readers see (what this
// process and any other committed); they are short and read-only, are
// never made inside a transaction of the writer (which would wait for
// itself: no caller outside this package holds one, and none inside
// calls them in one), and wait for a write in progress instead of
// reading beside it. A read-only store reads through its readers.

import (
	"context"
	"database/sql"
	"fmt"
)

// openReader returns the pool a session's open reads through: the
// writing connection of a writable store, the readers of a read-only one.
func openReader(s *Store) *sql.DB {
	if s.db != nil {
		return s.db
	}
	return s.rdb
}

// ThroughWriter has Load read through the writing connection too (on),
// or through the readers again (off), for the open of the one session a
// process drives (agent run: on for its loop.Open, off once it is open):
// that open then opens no reading connection at all. Every other write of
// the process waits for such a read, so the windows read later — the
// run's subagents' (internal/task, on the same store, several at once),
// its todo tools' — and every window of a store that runs several
// sessions (the chat, ACP) are read through the readers.
func (w Window) ThroughWriter(on bool) { w.s.windowsThroughWriter.Store(on) }

// windowReader returns the pool Window.Load reads through — openReader's
// while Window.ThroughWriter is on, the readers otherwise — and whether
// it is the writer.
func windowReader(s *Store) (db *sql.DB, writer bool) {
	if s.windowsThroughWriter.Load() && s.db != nil {
		return s.db, true
	}
	return s.rdb, false
}

// readOnce bounds conn's page cache to a reader's (readerCacheKiB) while
// a window is read through it, when conn is the writing connection
// (writer): the window's pages are read once, and would otherwise stay in
// the writer's cache (SQLite's default 2,000 KiB), 140 more page faults
// and 0.4 MiB more peak memory for a resumed run than through a reader.
// restore puts the writer's own size back; for a reader's connection both
// do nothing.
func readOnce(ctx context.Context, conn *sql.Conn, writer bool) (restore func(), err error) {
	if !writer {
		return func() {}, nil
	}
	var kib int64
	if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", readerCacheKiB)); err != nil {
		return nil, err
	}
	return func() {
		// On failure the writer keeps the reader's size: slower, not wrong.
		conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = %d", kib))
	}, nil
}
