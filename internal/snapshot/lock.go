package snapshot

// lock.go: the store's lock (one snapshot or restore at a time, across
// processes) and the running-tool markers another session's restore
// refuses on. Both are flock(2) locks, released by the kernel when the
// process dies, so a crash leaves nothing stale to clean.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockPollInterval is how often a waiting lock retries: snapshots take
// tens of milliseconds, so a short poll costs nothing and a context can
// still cancel the wait.
const lockPollInterval = 5 * time.Millisecond

// flock takes how (LOCK_EX or LOCK_SH) on path, waiting until ctx is done.
func flock(ctx context.Context, path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPollInterval):
		}
	}
}

// lock takes the store's lock; the returned function releases it.
func (s *Store) lock(ctx context.Context) (func(), error) {
	f, err := flock(ctx, s.lockPath, syscall.LOCK_EX)
	if err != nil {
		return nil, fmt.Errorf("lock snapshot store %s: %w", s.git.GitDir, err)
	}
	if s.git.Borrow == "" {
		s.readBorrow() // another process's first snapshot may have seeded the store
	}
	return func() { f.Close() }, nil
}

// BusyError is a restore's refusal while another session runs a tool in
// the same directory.
type BusyError struct{ Session string }

func (e *BusyError) Error() string {
	return fmt.Sprintf("snapshot: session %s is running a tool in this directory; restore later", e.Session)
}

func (s *Store) runningDir() string { return filepath.Join(s.git.GitDir, "agent-running") }

// BeginTool marks session as running a tool in the work tree until end is
// called (or the process dies): another session's Restore refuses
// meanwhile. It waits for a restore in progress to finish. The marker
// holds the start, and end records the window (windows.go).
func (s *Store) BeginTool(ctx context.Context, session string) (end func(), err error) {
	if err := checkSession(session); err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := os.MkdirAll(s.runningDir(), 0o700); err != nil {
		return nil, fmt.Errorf("mark tool running: %w", err)
	}
	f, err := flock(ctx, filepath.Join(s.runningDir(), session), syscall.LOCK_SH)
	if err != nil {
		return nil, fmt.Errorf("mark tool running: %w", err)
	}
	start := time.Now()
	f.Truncate(0)
	f.WriteAt([]byte(strconv.FormatInt(start.UnixNano(), 10)+"\n"), 0)
	return func() {
		s.recordWindow(Window{Session: session, Start: start, End: time.Now()})
		f.Close()
	}, nil
}

// running reports whether session holds its running marker (a tool runs).
func (s *Store) running(session string) bool {
	f, err := os.OpenFile(filepath.Join(s.runningDir(), session), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), syscall.EWOULDBLOCK)
}

// busySession returns a session other than self with a tool running, or
// "". The store's lock is held, so no tool can start meanwhile.
func (s *Store) busySession(self string) string {
	entries, _ := os.ReadDir(s.runningDir())
	for _, e := range entries {
		name := e.Name()
		if name == self || strings.HasPrefix(name, ".") {
			continue
		}
		if s.running(name) {
			return name
		}
	}
	return ""
}
