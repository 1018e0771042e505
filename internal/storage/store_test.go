package storage

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperDirEnv); dir != "" {
		os.Exit(runHelperProcess(dir))
	}
	goleak.VerifyTestMain(m)
}

// openTest opens a store in a fresh temporary data dir, closed at cleanup.
func openTest(t *testing.T) *Store {
	t.Helper()
	return openAt(t, t.TempDir())
}

func openAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// watcher collects a store's events.
type watcher struct{ ch <-chan message.Event }

func watch(t *testing.T, s *Store) *watcher {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &watcher{ch: s.Events().Subscribe(ctx)}
}

// next returns the next event matching match, failing after 5 s.
func (w *watcher) next(t *testing.T, match func(message.Event) bool) message.Event {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-w.ch:
			if !ok {
				t.Fatal("event channel closed")
			}
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatal("no matching event within 5s")
		}
	}
}

func ofType(typ message.EventType) func(message.Event) bool {
	return func(ev message.Event) bool { return ev.Type == typ }
}

// rawDB opens agent.db directly, bypassing the store.
// writeLocked holds the write lock of the database at path, as another
// process writing, until the test ends or the connection is rolled back.
func writeLocked(t *testing.T, path string) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := rawDB(t, path).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return conn
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// newSession creates a session with one assistant message.
func newSession(t *testing.T, s *Store, dir string) (*message.Session, *message.Message) {
	t.Helper()
	ctx := context.Background()
	sess := &message.Session{Title: "t", Model: "m", Dir: dir}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	m := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, Model: "m"}
	if err := s.CreateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	return sess, m
}

func TestOpenSetsPermissionsRegardlessOfUmask(t *testing.T) {
	old := syscall.Umask(0o222) // would make files read-only and the dir 0500
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	s := openAt(t, dir)
	newSession(t, s, "/w") // writes, so the WAL exists
	syscall.Umask(old)

	want := map[string]os.FileMode{
		dir:                        0o700 | os.ModeDir,
		s.Path():                   0o600,
		s.Path() + "-wal":          0o600,
		s.Path() + "-shm":          0o600,
		filepath.Join(dir, DBName): 0o600,
	}
	for path, mode := range want {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", path, info.Mode(), mode)
		}
	}
}

func TestOpenReportsUnusableDataDir(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		setup   func(t *testing.T, dir string)
		wantMsg string
	}{
		{name: "under a file", dir: filepath.Join(file, "data"), wantMsg: "create data dir " + filepath.Join(file, "data")},
		{name: "is a file", dir: file, wantMsg: file},
		{
			name: "not writable", dir: filepath.Join(base, "ro"),
			setup: func(t *testing.T, dir string) {
				if os.Geteuid() == 0 {
					t.Skip("root can write anywhere")
				}
				if err := os.Mkdir(dir, 0o500); err != nil {
					t.Fatal(err)
				}
			},
			wantMsg: "data dir " + filepath.Join(base, "ro") + " is not writable",
		},
		{name: "empty", dir: "", wantMsg: "no data dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t, tt.dir)
			}
			s, err := Open(context.Background(), tt.dir)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
		})
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := newSession(t, s, "/w")
	s.Close()
	for range 2 {
		s, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		v, err := s.userVersion(context.Background())
		if err != nil || v != latestVersion() {
			t.Errorf("user_version = %d, %v; want %d", v, err, latestVersion())
		}
		if _, err := s.GetSession(context.Background(), sess.ID); err != nil {
			t.Errorf("session lost on reopen: %v", err)
		}
		s.Close()
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	db := rawDB(t, path)
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	want := fmt.Sprintf("agent.db was written by a newer agent (schema 99 > %d); upgrade agent", latestVersion())
	for name, open := range map[string]func(context.Context, string) (*Store, error){
		"Open": Open, "OpenReadOnly": OpenReadOnly,
	} {
		s, err := open(context.Background(), dir)
		if err == nil {
			s.Close()
			t.Fatalf("%s accepted a newer schema", name)
		}
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q, want ErrNewerSchema with %q", name, err, want)
		}
	}
}

func TestLoadMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    int
		wantErr string
	}{
		{"ordered", fstest.MapFS{
			"migrations/0002_b.sql": {Data: []byte("B")},
			"migrations/0001_a.sql": {Data: []byte("A")},
		}, 2, ""},
		{"gap", fstest.MapFS{
			"migrations/0001_a.sql": {Data: []byte("A")},
			"migrations/0003_c.sql": {Data: []byte("C")},
		}, 0, "expected number 2"},
		{"bad name", fstest.MapFS{"migrations/init.sql": {Data: []byte("A")}}, 0, "not named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := loadMigrations(tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(ms) != tt.want {
				t.Fatalf("got %d migrations, %v", len(ms), err)
			}
			if ms[0].sql != "A" || ms[1].version != 2 {
				t.Errorf("wrong order: %+v", ms)
			}
		})
	}
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	t.Run("missing database", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "never")
		_, err := OpenReadOnly(ctx, dir)
		if !errors.Is(err, ErrNoDatabase) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %v, want ErrNoDatabase naming %s", err, dir)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("OpenReadOnly created %s", dir)
		}
	})

	t.Run("schema not created yet", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, DBName), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := OpenReadOnly(ctx, dir)
		if !errors.Is(err, ErrOlderSchema) {
			t.Fatalf("error %v, want ErrOlderSchema", err)
		}
	})

	t.Run("beside a writer", func(t *testing.T) {
		dir := t.TempDir()
		w := openAt(t, dir)
		sess, m := newSession(t, w, "/w")
		stream, err := w.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
		if err != nil {
			t.Fatal(err)
		}
		stream.Append("flushed ")
		if err := stream.Flush(ctx); err != nil {
			t.Fatal(err)
		}

		r, err := OpenReadOnly(ctx, dir)
		if err != nil {
			t.Fatalf("OpenReadOnly beside a writer: %v", err)
		}
		defer r.Close()
		if !r.ReadOnly() {
			t.Error("ReadOnly() = false")
		}
		parts, err := r.ListParts(ctx, sess.ID)
		if err != nil || len(parts) != 1 || parts[0].Text != "flushed " {
			t.Fatalf("reader sees %+v, %v", parts, err)
		}
		// A later write is visible to the reader.
		second := &message.Session{Title: "second"}
		if err := w.CreateSession(ctx, second); err != nil {
			t.Fatal(err)
		}
		if _, err := r.GetSession(ctx, second.ID); err != nil {
			t.Errorf("reader does not see a committed write: %v", err)
		}
		// Writes are refused by the store and by SQLite itself.
		if err := r.CreateSession(ctx, &message.Session{}); !errors.Is(err, ErrReadOnly) {
			t.Errorf("CreateSession on read-only store: %v", err)
		}
		if _, err := r.AcquireLease(ctx, sess.ID); !errors.Is(err, ErrReadOnly) {
			t.Errorf("AcquireLease on read-only store: %v", err)
		}
		if _, err := r.rdb.ExecContext(ctx, `DELETE FROM sessions`); err == nil {
			t.Error("a raw DELETE succeeded on the read-only connection")
		}
		if _, err := stream.Finish(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("changes nothing", func(t *testing.T) {
		dir := t.TempDir()
		w, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		newSession(t, w, "/w")
		w.Close()
		path := filepath.Join(dir, DBName)
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenReadOnly(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if list, err := r.ListSessions(ctx, ""); err != nil || len(list) != 1 {
			t.Errorf("ListSessions = %d, %v", len(list), err)
		}
		if _, err := r.RepairSession(ctx, "x"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("RepairSession on read-only store: %v", err)
		}
		r.Close()
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Error("agent.db changed under a read-only store")
		}
		if info, err := os.Stat(path + "-wal"); err == nil && info.Size() != 0 {
			t.Errorf("read-only store wrote %d bytes of WAL", info.Size())
		}
	})
}

func TestLockedDatabaseIsReportedClearly(t *testing.T) {
	old := busyTimeout
	busyTimeout = 150 * time.Millisecond
	defer func() { busyTimeout = old }()
	ctx := context.Background()
	s := openTest(t)

	conn := writeLocked(t, s.Path())
	start := time.Now()
	err := s.CreateSession(ctx, &message.Session{Title: "blocked"})
	waited := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("error %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), "create session") {
		t.Errorf("error %q should name the operation and the database", err)
	}
	if waited < busyTimeout {
		t.Errorf("gave up after %v, before the busy timeout %v", waited, busyTimeout)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, &message.Session{Title: "free"}); err != nil {
		t.Errorf("write after the lock was released: %v", err)
	}
}

func TestEventLog(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	if err := s.LogEvent(ctx, sess.ID, "prune", map[string]int{"parts": 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.LogEvent(ctx, sess.ID, "compaction", message.CompactionState{Auto: true, TokensBefore: 9}); err != nil {
		t.Fatal(err)
	}
	log, err := s.ListEventLog(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Kind != "prune" || log[1].Kind != "compaction" {
		t.Fatalf("log = %+v", log)
	}
	if string(log[0].Data) != `{"parts":3}` || log[0].At.IsZero() {
		t.Errorf("entry = %+v (data %s)", log[0], log[0].Data)
	}
	if err := s.LogEvent(ctx, sess.ID, "prune", map[string]int{"parts": 4}); err != nil {
		t.Fatal(err)
	}
	prunes, err := s.ListEventLogKind(ctx, sess.ID, "prune")
	if err != nil {
		t.Fatal(err)
	}
	if len(prunes) != 2 || string(prunes[0].Data) != `{"parts":3}` || string(prunes[1].Data) != `{"parts":4}` {
		t.Fatalf("prune events = %+v", prunes)
	}
	if none, err := s.ListEventLogKind(ctx, sess.ID, "context_limit"); err != nil || len(none) != 0 {
		t.Fatalf("context_limit events = %+v, %v", none, err)
	}
}

// TestCloseKeepsTheWALFiles checks that closing the store leaves the WAL
// (emptied: every frame is checkpointed into agent.db) and the wal-index
// in place for the next process: deleting and creating them again at every
// run costs each `agent run` a file system's inode allocation, twice.
func TestCloseKeepsTheWALFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	inodes := func() [2]os.FileInfo {
		t.Helper()
		var out [2]os.FileInfo
		for i, suffix := range []string{"-wal", "-shm"} {
			info, err := os.Stat(filepath.Join(dir, DBName) + suffix)
			if err != nil {
				t.Fatalf("after Close: %v", err)
			}
			out[i] = info
		}
		if out[0].Size() != 0 {
			t.Errorf("WAL left with %d bytes; want it checkpointed and emptied", out[0].Size())
		}
		return out
	}
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := newSession(t, s, "/w")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	first := inodes()
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetSession(ctx, sess.ID); err != nil || got.Title != "t" {
		t.Fatalf("the session did not survive the close: %v %v", got, err)
	}
	newSession(t, s, "/w")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	second := inodes()
	for i := range first {
		if !os.SameFile(first[i], second[i]) {
			t.Errorf("%s was deleted and made again", first[i].Name())
		}
	}
}
