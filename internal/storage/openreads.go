package storage

// openreads.go: the reads a session's open makes go through the writing
// connection of a writable store (issue 36, resume7), as ListQueueLatest,
// Memories and the event log's reads already do. They are the latest
// session (LatestSession, the other session lists), the session itself
// (GetSession), its pins (ListPins) and its window (Window.Load): a run
// that resumes a session then opens no reading connection — the
// database's file opened a second time, its WAL index mapped and the
// whole schema parsed once more, ≈ 3 ms of the ≈ 38 ms of CPU a resumed
// `agent run -c` took on a 100,000-part session (perf stat, 20 runs
// alternated). Contract: these reads see what the readers see (what this
// process and any other committed); they are short and read-only, are
// never made inside a transaction of the writer (which would wait for
// itself: no caller outside this package holds one, and none inside
// calls them in one), and wait for a write in progress instead of
// reading beside it. A read-only store reads through its readers.

import "database/sql"

// openReader returns the pool a session's open reads through: the
// writing connection of a writable store, the readers of a read-only one.
func openReader(s *Store) *sql.DB {
	if s.db != nil {
		return s.db
	}
	return s.rdb
}
