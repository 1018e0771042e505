package storage

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestSessionOpenOpensNoReadingConnection: the reads a resumed session's
// open makes — the latest session, the session by id and by prefix, its
// pins, its window — go through the writing connection of a writable
// store, so that `agent run -c` opens no reading connection (a file
// open and a parse of the whole schema); they give what the readers give.
func TestSessionOpenOpensNoReadingConnection(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.Window().ThroughWriter(true) // agent run's
	sess := windowSession(t, s, 30, 10)
	if err := s.AddPin(ctx, &message.Pin{SessionID: sess.ID, Text: "keep it"}); err != nil {
		t.Fatal(err)
	}
	latest, err := s.LatestSession(ctx, "/w")
	if err != nil || latest.ID != sess.ID {
		t.Fatalf("LatestSession = %v, %v; want %s", latest, err, sess.ID)
	}
	got, err := s.GetSession(ctx, sess.ID)
	if err != nil || got.ID != sess.ID {
		t.Fatalf("GetSession = %v, %v", got, err)
	}
	if got, err = s.GetSession(ctx, sess.ID[:8]); err != nil || got.ID != sess.ID {
		t.Fatalf("GetSession by prefix = %v, %v", got, err)
	}
	pins, err := s.ListPins(ctx, sess.ID)
	if err != nil || len(pins) != 1 {
		t.Fatalf("ListPins = %v, %v", pins, err)
	}
	window, err := s.Window().Load(ctx, sess.ID, func(sk []Entry) string { return sk[len(sk)-1].Message.ID })
	if err != nil || len(window) == 0 {
		t.Fatalf("Window.Load = %d entries, %v", len(window), err)
	}
	if n := s.rdb.Stats().OpenConnections; n != 0 {
		t.Fatalf("the open's reads opened %d reading connections, want none", n)
	}
	// What the readers give for the same rows (LoadHistory reads through them).
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tail := whole[len(whole)-len(window):]; !reflect.DeepEqual(tail, window) {
		t.Fatalf("the window read through the writer differs from the readers' history")
	}
	viaReaders, err := scanSession(s.rdb.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, sess.ID))
	if err != nil || !reflect.DeepEqual(viaReaders, got) || !reflect.DeepEqual(*viaReaders, *latest) {
		t.Fatalf("the session read through the writer differs from the readers': %v %v %v (%v)", got, latest, viaReaders, err)
	}
}

// TestWindowLoadTakesNoWriteLock: read through the writing connection,
// a window's read is a read transaction — it neither waits for another
// process's write nor holds one off (the writer's transactions take the
// write lock at BEGIN).
func TestWindowLoadTakesNoWriteLock(t *testing.T) {
	old := busyTimeout
	busyTimeout = 150 * time.Millisecond
	defer func() { busyTimeout = old }()
	ctx := context.Background()
	s := openTest(t)
	s.Window().ThroughWriter(true) // agent run's
	sess := windowSession(t, s, 30, 10)

	conn := writeLocked(t, s.Path())
	defer conn.ExecContext(ctx, "ROLLBACK")
	window, err := s.Window().Load(ctx, sess.ID, func(sk []Entry) string { return sk[len(sk)-1].Message.ID })
	if err != nil || len(window) == 0 {
		t.Fatalf("Window.Load while another process writes = %d entries, %v", len(window), err)
	}
}

// TestWindowLoadKeepsTheWritersCacheSize: the window is read through the
// writing connection with a reader's page cache (readOnce), and the
// writer has its own size back afterwards, also after a failed read.
func TestWindowLoadKeepsTheWritersCacheSize(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.Window().ThroughWriter(true) // agent run's
	sess := windowSession(t, s, 30, 10)
	size := func() int64 {
		var kib int64
		if err := s.db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		return kib
	}
	before := size()
	if before == -readerCacheKiB {
		t.Fatalf("the writer's cache is already a reader's (%d): the test shows nothing", before)
	}
	if _, err := s.Window().Load(ctx, sess.ID, func(sk []Entry) string { return sk[0].Message.ID }); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != before {
		t.Fatalf("the writer's cache_size after Window.Load = %d, want %d", got, before)
	}
	// Cancelled in the middle of the read, after readOnce (review9).
	cancelled, cancel := context.WithCancel(ctx)
	if _, err := s.Window().Load(cancelled, sess.ID, func(sk []Entry) string { cancel(); return "" }); err == nil {
		t.Fatal("a window read cancelled in its middle succeeded: the test shows nothing")
	}
	if got := size(); got != before {
		t.Fatalf("the writer's cache_size after a cancelled Window.Load = %d, want %d", got, before)
	}
}

// A store that runs several sessions (the chat, ACP) reads a window
// through its readers: the writes of its other sessions do not wait for
// the read (review9). Only a store opted in (agent run's, one session)
// reads it through the writer.
func TestWindowLoadLeavesTheWriterToOtherSessions(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := windowSession(t, s, 30, 10)
	other := &message.Session{Title: "other", Dir: "/w"}
	if err := s.CreateSession(ctx, other); err != nil {
		t.Fatal(err)
	}
	_, err := s.Window().Load(ctx, sess.ID, func(sk []Entry) string {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		m := &message.Message{SessionID: other.ID, Role: message.RoleUser}
		if _, err := s.AddUserMessage(wctx, m, []*message.Part{{Type: message.PartText, Text: "meanwhile"}}, ""); err != nil {
			t.Errorf("another session's write during a window read: %v", err)
		}
		return sk[len(sk)-1].Message.ID
	})
	if err != nil {
		t.Fatal(err)
	}
}
