package storage

// Ownership. One process drives a session at a time: it holds the
// session's row in leases and refreshes its heartbeat every leaseHeartbeat.
// A lease is live while its heartbeat is fresher than leaseStaleAfter and,
// when it was taken on this host, its process still exists. A lease that
// is not live is taken over. Leases taken on another host (a shared data
// dir) are trusted while their heartbeat is fresh, since their process
// cannot be probed from here.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// Variables so tests can shorten them.
var (
	leaseHeartbeat  = 5 * time.Second
	leaseStaleAfter = 30 * time.Second
)

// Lease is a process's claim on driving one session. Release it when done.
type Lease struct {
	store     *Store
	sessionID string
	token     string

	stop chan struct{}
	done chan struct{}
	lost chan struct{}

	once       sync.Once
	releaseErr error
}

// leaseRow is a row of the leases table.
type leaseRow struct {
	token     string
	pid       int
	host      string
	heartbeat time.Time
}

// leaseLive decides whether a lease still belongs to a live owner.
func leaseLive(l leaseRow, at time.Time, host string, pidAlive func(int) bool) bool {
	if at.Sub(l.heartbeat) > leaseStaleAfter {
		return false
	}
	if l.host != host {
		return true
	}
	return pidAlive(l.pid)
}

// processAlive reports whether a process with this pid exists on this host.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// readLease returns the session's lease row, if any.
func readLease(ctx context.Context, q querier, sessionID string) (leaseRow, bool, error) {
	var l leaseRow
	var hb int64
	err := q.QueryRowContext(ctx, `SELECT token, pid, host, heartbeat_at FROM leases WHERE session_id = ?`,
		sessionID).Scan(&l.token, &l.pid, &l.host, &hb)
	if errors.Is(err, sql.ErrNoRows) {
		return leaseRow{}, false, nil
	}
	if err != nil {
		return leaseRow{}, false, err
	}
	l.heartbeat = fromUnix(hb)
	return l, true, nil
}

// AcquireLease claims a session for this process. It fails with
// ErrSessionBusy, naming the owner, when another live process (or another
// Store of this one) holds it; a stale lease is taken over. The lease's
// heartbeat runs in a goroutine until Release or Store.Close.
func (s *Store) AcquireLease(ctx context.Context, sessionID string) (*Lease, error) {
	op := "acquire session " + sessionID
	if err := s.writable(op); err != nil {
		return nil, err
	}
	var l *Lease
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		var err error
		l, err = s.leaseIn(ctx, tx, sessionID, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.holdLease(l, op)
}

// leaseIn claims sessionID in tx; with check, it first makes sure the
// session exists and no live process holds it (a session made in tx needs
// neither).
func (s *Store) leaseIn(ctx context.Context, tx *sql.Tx, sessionID string, check bool) (*Lease, error) {
	l := &Lease{
		store: s, sessionID: sessionID, token: message.NewID(),
		stop: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{}),
	}
	pid, host := os.Getpid(), hostname()
	ts := now()
	if check {
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return nil, err
		}
		held, ok, err := readLease(ctx, tx, sessionID)
		if err != nil {
			return nil, err
		}
		if ok && leaseLive(held, ts, host, processAlive) {
			return nil, busyError(held, ts)
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO leases (session_id, token, pid, host, acquired_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET token = excluded.token,
		pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at,
		heartbeat_at = excluded.heartbeat_at`,
		sessionID, l.token, pid, host, toUnix(ts), toUnix(ts))
	if err != nil {
		return nil, err
	}
	return l, nil
}

// holdLease registers a committed lease with the store and starts its
// heartbeat; a store closed meanwhile deletes it again.
func (s *Store) holdLease(l *Lease, op string) (*Lease, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		close(l.done)
		l.deleteRow()
		return nil, fmt.Errorf("%s: store is closed", op)
	}
	s.leases[l] = struct{}{}
	s.mu.Unlock()
	go l.heartbeat()
	return l, nil
}

func busyError(held leaseRow, at time.Time) error {
	return fmt.Errorf("%w: driven by pid %d on %s (heartbeat %s ago)",
		ErrSessionBusy, held.pid, held.host, at.Sub(held.heartbeat).Round(time.Millisecond))
}

// SessionID returns the id of the leased session.
func (l *Lease) SessionID() string { return l.sessionID }

// Lost is closed when the lease was taken over by another process (after
// this one stopped heartbeating for leaseStaleAfter, e.g. while suspended):
// the holder must stop driving the session.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

func (l *Lease) heartbeat() {
	defer close(l.done)
	ticker := time.NewTicker(leaseHeartbeat)
	defer ticker.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), leaseHeartbeat)
		res, err := l.store.db.ExecContext(ctx, `UPDATE leases SET heartbeat_at = ?
			WHERE session_id = ? AND token = ?`, toUnix(now()), l.sessionID, l.token)
		cancel()
		if err != nil {
			continue // transient (busy): the next tick tries again
		}
		if n, _ := res.RowsAffected(); n == 0 {
			close(l.lost)
			return
		}
	}
}

// Release stops the heartbeat and deletes the lease, if this process still
// holds it. Releasing again returns the first result.
func (l *Lease) Release() error {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.releaseErr = l.deleteRow()
		l.store.mu.Lock()
		delete(l.store.leases, l)
		l.store.mu.Unlock()
	})
	return l.releaseErr
}

func (l *Lease) deleteRow() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyTimeout)
	defer cancel()
	_, err := l.store.db.ExecContext(ctx, `DELETE FROM leases WHERE session_id = ? AND token = ?`,
		l.sessionID, l.token)
	return l.store.fail("release session "+l.sessionID, err)
}

// LeaseHolder returns the pid holding the session's lease and whether that
// owner is live. pid is 0 when nobody holds it.
func (s *Store) LeaseHolder(ctx context.Context, sessionID string) (pid int, alive bool, err error) {
	held, ok, err := readLease(ctx, s.rdb, sessionID)
	if err != nil {
		return 0, false, s.fail("lease holder of session "+sessionID, err)
	}
	if !ok {
		return 0, false, nil
	}
	return held.pid, leaseLive(held, now(), hostname(), processAlive), nil
}

// checkNotDrivenElsewhere returns ErrSessionBusy when a live owner other
// than one of this Store's leases holds the session.
func (s *Store) checkNotDrivenElsewhere(ctx context.Context, q querier, op, sessionID string) error {
	held, ok, err := readLease(ctx, q, sessionID)
	if err != nil {
		return s.fail(op, err)
	}
	if !ok {
		return nil
	}
	s.mu.Lock()
	for l := range s.leases {
		if l.sessionID == sessionID && l.token == held.token {
			s.mu.Unlock()
			return nil
		}
	}
	s.mu.Unlock()
	ts := now()
	if leaseLive(held, ts, hostname(), processAlive) {
		return fmt.Errorf("%s: %w", op, busyError(held, ts))
	}
	return nil
}
