package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// writeLease puts a lease row in place as another process would.
func writeLease(t *testing.T, s *Store, sessionID string, pid int, host string, heartbeat time.Time) {
	t.Helper()
	_, err := s.db.Exec(`INSERT OR REPLACE INTO leases (session_id, token, pid, host, acquired_at, heartbeat_at)
		VALUES (?, 'other', ?, ?, ?, ?)`, sessionID, pid, host, toUnix(heartbeat), toUnix(heartbeat))
	if err != nil {
		t.Fatal(err)
	}
}

func TestLeaseLive(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	alive := func(pid int) bool { return pid == 42 }
	tests := []struct {
		name  string
		lease leaseRow
		want  bool
	}{
		{"fresh, same host, alive", leaseRow{pid: 42, host: "h", heartbeat: at.Add(-time.Second)}, true},
		{"fresh, same host, dead", leaseRow{pid: 7, host: "h", heartbeat: at.Add(-time.Second)}, false},
		{"stale, same host, alive", leaseRow{pid: 42, host: "h", heartbeat: at.Add(-leaseStaleAfter - time.Second)}, false},
		{"fresh, other host", leaseRow{pid: 7, host: "other", heartbeat: at.Add(-time.Second)}, true},
		{"stale, other host", leaseRow{pid: 7, host: "other", heartbeat: at.Add(-time.Hour)}, false},
		{"heartbeat from the future", leaseRow{pid: 42, host: "h", heartbeat: at.Add(time.Minute)}, true},
	}
	for _, tt := range tests {
		if got := leaseLive(tt.lease, at, "h", alive); got != tt.want {
			t.Errorf("%s: live = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLeaseHeldByLiveProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first := openAt(t, dir)
	second := openAt(t, dir) // another Store: as a second terminal would
	sess, _ := newSession(t, first, "/w")

	lease, err := first.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = second.AcquireLease(ctx, sess.ID)
	if !errors.Is(err, ErrSessionBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second acquire: %v, want ErrSessionBusy naming pid %d", err, os.Getpid())
	}
	pid, alive, err := second.LeaseHolder(ctx, sess.ID)
	if err != nil || pid != os.Getpid() || !alive {
		t.Errorf("LeaseHolder = %d, %v, %v", pid, alive, err)
	}
	// The holder may repair; the other store may not, nor delete.
	if _, err := second.RepairSession(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("repair by a non-holder: %v", err)
	}
	if err := second.DeleteSession(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("delete by a non-holder: %v", err)
	}
	if _, err := first.RepairSession(ctx, sess.ID); err != nil {
		t.Errorf("repair by the holder: %v", err)
	}

	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	if err := lease.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if pid, _, _ := second.LeaseHolder(ctx, sess.ID); pid != 0 {
		t.Errorf("lease row left after Release (pid %d)", pid)
	}
	taken, err := second.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if taken.SessionID() != sess.ID {
		t.Errorf("SessionID() = %s", taken.SessionID())
	}
	// Closing the store releases its leases.
	second.Close()
	if pid, _, _ := first.LeaseHolder(ctx, sess.ID); pid != 0 {
		t.Errorf("Close left the lease held by %d", pid)
	}
}

func TestStaleLeaseIsTakenOver(t *testing.T) {
	ctx := context.Background()
	host := hostname()
	tests := []struct {
		name      string
		pid       func(t *testing.T) int
		host      string
		heartbeat time.Duration // age
		wantBusy  bool
	}{
		{"dead pid", deadPID, host, 0, false},
		{"old heartbeat of a live pid", func(*testing.T) int { return os.Getpid() }, host, 2 * leaseStaleAfter, false},
		{"other host, fresh", func(*testing.T) int { return 1 }, "elsewhere", 0, true},
		{"other host, stale", func(*testing.T) int { return 1 }, "elsewhere", 2 * leaseStaleAfter, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			sess, _ := newSession(t, s, "/w")
			pid := tt.pid(t)
			writeLease(t, s, sess.ID, pid, tt.host, now().Add(-tt.heartbeat))
			gotPID, alive, err := s.LeaseHolder(ctx, sess.ID)
			if err != nil || gotPID != pid || alive != tt.wantBusy {
				t.Errorf("LeaseHolder = %d, %v, %v; want %d, %v", gotPID, alive, err, pid, tt.wantBusy)
			}
			lease, err := s.AcquireLease(ctx, sess.ID)
			if tt.wantBusy {
				if !errors.Is(err, ErrSessionBusy) {
					t.Fatalf("acquire: %v, want ErrSessionBusy", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("takeover: %v", err)
			}
			defer lease.Release()
			if gotPID, alive, _ := s.LeaseHolder(ctx, sess.ID); gotPID != os.Getpid() || !alive {
				t.Errorf("after takeover holder is %d (alive %v)", gotPID, alive)
			}
		})
	}
}

func TestLeaseHeartbeatAndLoss(t *testing.T) {
	old := leaseHeartbeat
	leaseHeartbeat = 10 * time.Millisecond
	defer func() { leaseHeartbeat = old }()
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	lease, err := s.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	beat := func() int64 {
		var hb int64
		if err := s.rdb.QueryRow(`SELECT heartbeat_at FROM leases WHERE session_id = ?`, sess.ID).Scan(&hb); err != nil {
			t.Fatal(err)
		}
		return hb
	}
	first := beat()
	deadline := time.Now().Add(5 * time.Second)
	for beat() == first {
		if time.Now().After(deadline) {
			t.Fatal("heartbeat never refreshed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Another process takes the lease over: the holder learns it lost it.
	if _, err := s.db.Exec(`UPDATE leases SET token = 'thief' WHERE session_id = ?`, sess.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lease.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost() not closed after a takeover")
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	var token string
	if err := s.rdb.QueryRow(`SELECT token FROM leases WHERE session_id = ?`, sess.ID).Scan(&token); err != nil || token != "thief" {
		t.Errorf("Release of a lost lease touched the new holder's row: %q, %v", token, err)
	}
}

// TestCreateSessionLeased checks the one-transaction start of a new
// session: the session is stored and published, and this process holds
// it as AcquireLease would have.
func TestCreateSessionLeased(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := s.Events().Subscribe(ctx)
	sess := &message.Session{Title: "t", Model: "m", Dir: "/w"}
	l, err := s.CreateSessionLeased(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID == "" || sess.CreatedAt.IsZero() {
		t.Fatalf("session not filled in: %+v", sess)
	}
	if got, err := s.GetSession(ctx, sess.ID); err != nil || got.Title != "t" || got.Dir != "/w" {
		t.Fatalf("GetSession = %+v, %v", got, err)
	}
	if ev := <-events; ev.Type != message.EventSessionUpdated || ev.SessionID != sess.ID {
		t.Errorf("event %+v", ev)
	}
	if _, err := s.AcquireLease(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("second lease: %v, want ErrSessionBusy", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := s.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l2.Release()
}

// TestCreateSessionWithMessage checks the one-transaction start of a
// session whose row waited for its first message: session, lease, title,
// message and its indexed parts all land together.
func TestCreateSessionWithMessage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{Model: "m", Dir: "/w"}
	m := &message.Message{Role: message.RoleUser, Model: "m"}
	parts := []*message.Part{{Type: message.PartText, Text: "find the zebra"}}
	stored, l, err := s.CreateSessionWithMessage(ctx, sess, m, parts, "Find the zebra")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if stored.ID != sess.ID || stored.Title != "Find the zebra" || m.SessionID != sess.ID || parts[0].MessageID != m.ID {
		t.Fatalf("stored %+v, message %+v, part %+v", stored, m, parts[0])
	}
	if _, err := s.AcquireLease(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("second lease: %v, want ErrSessionBusy", err)
	}
	h, err := s.LoadHistory(ctx, sess.ID)
	if err != nil || len(h) != 1 || len(h[0].Parts) != 1 || h[0].Parts[0].Text != "find the zebra" {
		t.Fatalf("history %+v, %v", h, err)
	}
	hits, err := s.SearchSession(ctx, sess.ID, "zebra", 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v, %v", hits, err)
	}
}
