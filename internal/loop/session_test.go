package loop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// The session state and the turn control on their own: no Runner.

func newStateRig(t *testing.T) (*sessionState, *storage.Store) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	seedDataDir(t, dir)
	st, err := storage.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sess := message.Session{ID: message.NewID(), Model: "m", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := st.CreateSession(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	return &sessionState{sess: sess}, st
}

// A change that fails writes nothing, in memory or stored; one that goes
// through is stored as the row in memory says.
func TestSessionStateWrite(t *testing.T) {
	ctx := context.Background()
	s, st := newStateRig(t)
	refused := errors.New("busy")
	if _, err := s.write(ctx, st, func(row *message.Session) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("write = %v, want %v", err, refused)
	}
	row, err := s.write(ctx, st, func(row *message.Session) error { row.Title = "fix the parser"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.GetSession(ctx, s.id())
	if err != nil {
		t.Fatal(err)
	}
	if row.Title != "fix the parser" || stored.Title != row.Title || s.session().Title != row.Title {
		t.Errorf("title: returned %q, stored %q, in memory %q", row.Title, stored.Title, s.session().Title)
	}
	if _, ok := s.addUsage(ctx, st, message.Usage{Input: 100, Output: 10}, 0.5); !ok {
		t.Fatal("addUsage failed")
	}
	if stored, _ := st.GetSession(ctx, s.id()); stored.CostUSD != 0.5 || s.session().CostUSD != 0.5 {
		t.Errorf("cost: stored %v, in memory %v; want 0.5", stored.CostUSD, s.session().CostUSD)
	}
}

// Pins and history edits find their entry by id, and the copies handed
// out are the caller's own.
func TestSessionStateEdits(t *testing.T) {
	var s sessionState
	s.addPin(message.Pin{ID: "a", Text: "one"})
	s.addPin(message.Pin{ID: "b", Text: "two"})
	if p := s.editPin("b", "deux"); p.Text != "deux" {
		t.Errorf("editPin = %+v", p)
	}
	if p := s.removePin("a"); p.ID != "a" {
		t.Errorf("removePin = %+v", p)
	}
	if p := s.removePin("nope"); p.ID != "" {
		t.Errorf("removePin of an unknown pin = %+v", p)
	}
	pins := s.pinsCopy()
	if len(pins) != 1 || pins[0].Text != "deux" {
		t.Fatalf("pins = %+v", pins)
	}
	pins[0].Text = "changed by the caller"
	if s.pinsCopy()[0].Text != "deux" {
		t.Error("pinsCopy shares its array with the state")
	}

	s.appendEntry(message.Entry{Message: message.Message{ID: "m1"}})
	s.appendEntry(message.Entry{Message: message.Message{ID: "m2"}})
	s.replaceEntry(message.Entry{Message: message.Message{ID: "m1", Model: "new"}})
	h := s.historyCopy()
	if len(h) != 2 || h[0].Message.Model != "new" || h[1].Message.Model != "" {
		t.Errorf("history after replace = %+v", h)
	}
	if !s.setSystem([]string{"a"}, time.Now()) || s.setSystem([]string{"a"}, time.Now()) {
		t.Error("setSystem reports a change only when the prompt changed")
	}
}

// One busy period at a time; a message queued while busy is queued
// under the lock, and ending the period with one waiting starts a turn
// with it instead of going idle.
func TestTurnControlClaimRelease(t *testing.T) {
	var s sessionState
	var waiting atomic.Bool
	ran := make(chan struct{}, 1)
	tc := newTurnControl(&s.mu.Mutex, turnDeps{
		run: func(ctx context.Context) TurnResult {
			ran <- struct{}{}
			return TurnResult{FinishReason: "stop"}
		},
		waiting: func(context.Context) bool { return waiting.Load() },
		inject: func(context.Context) (bool, error) {
			waiting.Store(false)
			return true, nil
		},
		status: func(bool) {},
	})
	if !tc.claim() || tc.claim() {
		t.Fatal("a second claim went through")
	}
	if _, err := tc.claimPeriod(); !errors.Is(err, ErrBusy) {
		t.Errorf("claimPeriod while busy = %v, want ErrBusy", err)
	}
	queued := false
	claimed, err := tc.claimOr(func() error { return nil }, func() error {
		if s.mu.TryLock() {
			s.mu.Unlock()
			t.Error("queue ran without the lock held")
		}
		queued = true
		return nil
	})
	if claimed || err != nil || !queued {
		t.Errorf("claimOr while busy = %v, %v; queued %v", claimed, err, queued)
	}
	tc.release()
	if tc.isBusy() {
		t.Fatal("still busy after release with nothing queued")
	}

	refused := errors.New("no vision")
	if claimed, err := tc.claimOr(func() error { return refused }, nil); claimed || !errors.Is(err, refused) || tc.isBusy() {
		t.Errorf("claimOr with a failing check = %v, %v; busy %v", claimed, err, tc.isBusy())
	}

	// A message came while a !command ran: releasing starts its turn.
	if !tc.claim() {
		t.Fatal("claim after release failed")
	}
	waiting.Store(true)
	tc.release()
	<-ran
	if res := tc.wait(context.Background()); res.FinishReason != "stop" {
		t.Errorf("the resumed turn ended %q, want stop", res.FinishReason)
	}
	if tc.isBusy() {
		t.Error("still busy after the resumed turn")
	}
}
