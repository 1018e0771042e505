package loop

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// TestRowOnFirstMessage checks a headless run's start: the new session's
// row and lease wait for the first message and are written with it, and
// the turn then runs as any other.
func TestRowOnFirstMessage(t *testing.T) {
	ctx := context.Background()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.RowOnFirstMessage = true }, pt.Text("Done."))
	id := h.r.Session().ID
	if id == "" {
		t.Fatal("no session id before the first message")
	}
	if _, err := h.store.GetSession(ctx, id); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the session's row exists before its first message: %v", err)
	}
	if res := h.turn("count the zebras"); res.Err != nil {
		t.Fatal(res.Err)
	}
	sess, err := h.store.GetSession(ctx, id)
	if err != nil || sess.Title == "" || sess.Usage.Output == 0 {
		t.Fatalf("after the turn: %+v, %v", sess, err)
	}
	if _, err := h.store.AcquireLease(ctx, id); !errors.Is(err, storage.ErrSessionBusy) {
		t.Fatalf("the runner does not hold its session: %v", err)
	}
	hist, err := h.store.LoadHistory(ctx, id)
	if err != nil || len(hist) != 2 {
		t.Fatalf("history: %d entries, %v", len(hist), err)
	}
	if err := h.r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := h.store.AcquireLease(ctx, id)
	if err != nil {
		t.Fatalf("Close kept the lease: %v", err)
	}
	l.Release()
}

// TestRowOnFirstMessageNeverSent checks that a run closed before its first
// message leaves no session behind.
func TestRowOnFirstMessageNeverSent(t *testing.T) {
	ctx := context.Background()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.RowOnFirstMessage = true })
	id := h.r.Session().ID
	if err := h.r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.GetSession(ctx, id); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("an empty session was stored: %v", err)
	}
	if list, err := h.store.ListSessions(ctx, ""); err != nil || len(list) != 0 {
		t.Fatalf("sessions: %v, %v", list, err)
	}
}
