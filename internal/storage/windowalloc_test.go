package storage

import (
	"context"
	"database/sql"
	"runtime"
	"testing"
	"unsafe"

	"github.com/ctxloop/agent/internal/message"
)

// Window.Load reads the window's rows into its entries as they come: the
// messages and parts are not gathered in lists of their own first and
// then copied under each message, and a part's state is decoded from the
// row as it is read. What it allocates is the entries themselves, within
// a small factor of their size (issue 36: a resumed run's peak memory is
// ≤ 1.2× a new session's).
func TestWindowLoadAllocatesWhatItReturns(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 300, 1000)
	var stored int64
	if err := s.rdb.QueryRowContext(ctx, `SELECT sum(length(state)) FROM parts WHERE session_id = ?`, sess.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	load := func() []Entry {
		w, err := s.Window().Load(ctx, sess.ID, func([]Entry) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	load() // the statements prepared, the decoder's caches filled
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := load()
	runtime.ReadMemStats(&after)
	bytes := int64(after.TotalAlloc - before.TotalAlloc)
	allocs := after.Mallocs - before.Mallocs
	parts := 0
	for _, e := range w {
		parts += len(e.Parts)
	}
	// The floor: the entries' and parts' structs and the text decoded
	// from the states. Gathering the rows in lists and copying them under
	// their messages, and the states' bytes kept for a second pass, made
	// it 6.6× that; database/sql's Rows, 2.9× (the rows are read through
	// the driver now: rawrows.go).
	floor := int64(len(w))*int64(unsafe.Sizeof(Entry{})) + int64(parts)*int64(unsafe.Sizeof(message.Part{})) + stored
	t.Logf("%d entries, %d parts, %d bytes of state: %d bytes in %d allocations (%.1f× the floor of %d)",
		len(w), parts, stored, bytes, allocs, float64(bytes)/float64(floor), floor)
	if bytes > 5*floor/2 {
		t.Errorf("Window.Load allocated %d bytes, %.1f× its floor of %d bytes; want ≤ 2.5×", bytes, float64(bytes)/float64(floor), floor)
	}
}

// The reading connections keep a small page cache (readerCacheKiB, at
// most 128 KiB), not SQLite's 2,000 KiB each: what they read is read
// once. A resumed `agent run -c` opens one reader for its window, whose
// cache filled to its size (512 KiB held 0.8 MiB of its peak RSS, issue
// 36).
func TestReadersKeepASmallPageCache(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	conns := make([]*sql.Conn, 2) // two of the pool's connections
	for i := range conns {
		c, err := s.rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		var size int
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != -readerCacheKiB || size < -128 {
			t.Errorf("reader %d: cache_size %d, want %d (KiB), at most 128 KiB", i, size, -readerCacheKiB)
		}
	}
}

// A resumed session's next turn appends to the window Load returned: its
// user message, then each step's answer. The window leaves room for them,
// so that the first appends do not copy the whole window into a new array
// twice its size (a resumed `agent run -c` held both: issue 36, its peak
// RSS).
func TestWindowLeavesRoomForTheNextTurn(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 40, 1000)
	w, err := s.Window().Load(ctx, sess.ID, func([]Entry) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 80 {
		t.Fatalf("window of %d messages, want 80", len(w))
	}
	if room := cap(w) - len(w); room < windowRoom {
		t.Errorf("window of %d messages with room for %d more; want room for %d (a turn's appends copy it)", len(w), room, windowRoom)
	}
	if cap(w) > len(w)+windowRoom {
		t.Errorf("window of %d messages with capacity %d; want at most %d", len(w), cap(w), len(w)+windowRoom)
	}
}
