package loop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// What the user asks of the compactor while the loop is busy is refused
// with ErrBusy and writes nothing; once idle, each request ends its busy
// period with its result.
func TestCompactorClaimsTheLoop(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 100_000)
	rig.busy = true
	if err := rig.c.compactNow(ctx, compactRequest{reason: "manual"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("compact while busy: %v, want ErrBusy", err)
	}
	if _, err := rig.c.undoNow(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("undo while busy: %v, want ErrBusy", err)
	}
	if err := rig.c.editSummaryNow(ctx, "new text"); !errors.Is(err, ErrBusy) {
		t.Fatalf("summary edit while busy: %v, want ErrBusy", err)
	}
	if len(rig.hist.h) != 0 || len(rig.events) != 0 || len(rig.released) != 0 {
		t.Fatalf("refused requests left %d entries, %d events, %d releases", len(rig.hist.h), len(rig.events), len(rig.released))
	}

	rig.busy = false
	if err := rig.c.compactNow(ctx, compactRequest{reason: "manual"}); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("compact of an empty session: %v, want ErrNothingToCompact", err)
	}
	if _, err := rig.c.undoNow(ctx); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo of an empty session: %v, want ErrNothingToUndo", err)
	}
	if rig.busy || len(rig.released) != 2 {
		t.Fatalf("busy %v, %d releases; want idle after two", rig.busy, len(rig.released))
	}
	for i, res := range rig.released {
		if res.FinishReason != FinishError || res.Err == nil {
			t.Errorf("release %d = %+v, want the error", i, res)
		}
	}
	if rig.c.breaker.Made != 0 {
		t.Fatalf("breaker.Made = %d after nothing to compact, want 0", rig.c.breaker.Made)
	}
}

// A failed automatic compaction covers the totals until the context has
// grown by a twentieth of the window; a new turn gives the breaker back.
func TestCompactorFailedPointAndBreaker(t *testing.T) {
	c := newCompactor(compactorDeps{}, nil)
	s := tokens.Reading{Window: 10_000, Total: 5_000}
	if c.failedCovers(s) {
		t.Fatal("no failure yet, but the failed point covers")
	}
	c.failedAt = 5_000
	for _, tt := range []struct {
		total int64
		want  bool
	}{{5_000, true}, {5_499, true}, {5_500, false}, {9_000, false}} {
		s.Total = tt.total
		if got := c.failedCovers(s); got != tt.want {
			t.Errorf("failed at 5000, total %d: covers %v, want %v", tt.total, got, tt.want)
		}
	}
	c.breaker.Made, c.breaker.SummaryFailures = 3, 2
	c.newTurn()
	if c.breaker.Made != 0 || c.breaker.SummaryFailures != 0 {
		t.Fatalf("breaker after newTurn = %+v, want a fresh one", c.breaker)
	}
}

// A refusal teaches a ceiling, logged for the session's model; a
// compactor opened later reads it back for that model only.
func TestCompactorLearnsAndRestoresTheCeiling(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 100_000)
	refusal := &provider.Error{Class: provider.ClassContextOverflow, StatusCode: 400, Message: "too long"}
	rig.c.learnFromRefusal(ctx, &rig.ceiling, refusal, 80_000, 60_000)
	if got := rig.ceiling.Load(); got != 72_000 {
		t.Fatalf("ceiling = %d, want 90%% of the refused 80000", got)
	}
	// A later refusal of a larger request does not raise it.
	rig.c.learnFromRefusal(ctx, &rig.ceiling, refusal, 90_000, 60_000)
	if got := rig.ceiling.Load(); got != 72_000 {
		t.Fatalf("ceiling after a larger refusal = %d, want 72000 kept", got)
	}

	var restored struct{ v atomic.Int64 }
	rig.c.restoreCeiling(ctx, &restored.v)
	if got := restored.v.Load(); got != 72_000 {
		t.Fatalf("restored ceiling = %d, want 72000", got)
	}
	other := *rig.c
	other.price = func() pricing { p := rig.c.price(); p.model = "other"; return p }
	restored.v.Store(1)
	other.restoreCeiling(ctx, &restored.v)
	if got := restored.v.Load(); got != 0 {
		t.Fatalf("restored ceiling for another model = %d, want 0", got)
	}
}

// The forecast is announced once the total passes NearFraction of the
// point, then updated before each later step, and not below it.
func TestCompactorAnnouncesTheForecast(t *testing.T) {
	rig := newCompactorRig(t, 100_000)
	rig.add(t, message.Message{Role: message.RoleUser}, message.Part{Type: message.PartText, Text: "hello"})
	near := func() []message.Event {
		var out []message.Event
		for _, ev := range rig.events {
			if ev.Type == message.EventCompactionNear {
				out = append(out, ev)
			}
		}
		return out
	}
	rig.c.announceNear(tokens.Reading{Total: 50_000, CompactAt: 80_000}, true)
	if n := len(near()); n != 0 {
		t.Fatalf("%d forecasts at 62%% of the point, want none", n)
	}
	rig.c.announceNear(tokens.Reading{Total: 73_000, CompactAt: 80_000}, true)
	rig.c.announceNear(tokens.Reading{Total: 76_000, CompactAt: 80_000}, false)
	evs := near()
	if len(evs) != 2 {
		t.Fatalf("%d forecasts past 90%%, want the first and an update", len(evs))
	}
	// The step of 23000 into the turn would pass the point; the next
	// step of 3000 leaves 4000, a turn at the 23000 a turn grew.
	if f := evs[0].Forecast; f.Update || f.Total != 73_000 || f.CompactAt != 80_000 || !f.NextStep {
		t.Fatalf("first forecast = %+v, want a new one at 73000 of 80000, the next step passing it", *f)
	}
	if f := evs[1].Forecast; !f.Update || f.NextStep || f.TurnsLeft != 1 {
		t.Fatalf("second forecast = %+v, want an update: about 1 turn left", *f)
	}
	if got := rig.c.near.turnStarts; len(got) != 2 || got[0] != 50_000 || got[1] != 73_000 {
		t.Fatalf("turn starts = %v, want [50000 73000]", got)
	}
}
