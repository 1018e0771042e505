package loop

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// preconnectRecorder is a provider that records Preconnect calls.
type preconnectRecorder struct {
	provider.Provider
	calls atomic.Int32
}

func (p *preconnectRecorder) Preconnect() { p.calls.Add(1) }

// TestPrefetchEnvironmentPreconnects: the user's first keystroke of a
// message (PrefetchEnvironment) has the provider open its connection.
func TestPrefetchEnvironmentPreconnects(t *testing.T) {
	rec := &preconnectRecorder{}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		rec.Provider = o.Provider
		o.Provider = rec
	}, pt.Text("one"))
	h.r.PrefetchEnvironment()
	if n := rec.calls.Load(); n != 1 {
		t.Fatalf("PrefetchEnvironment called Preconnect %d times; want 1", n)
	}
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
}

// TestPrefetchAfterTheOpenersGatheringDoesNotPreconnectAgain: a session
// opened with a gathering started for its coming turn (Options.Environment:
// a fresh chat's first key, which preconnected with it) and warmed ahead
// by PrefetchEnvironment opens no second connection for that turn; once
// the turn took the gathering, the next message's first key does.
func TestPrefetchAfterTheOpenersGatheringDoesNotPreconnectAgain(t *testing.T) {
	rec := &preconnectRecorder{}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		rec.Provider = o.Provider
		o.Provider = rec
		o.Environment = GatherEnvironment(context.Background(), o.Dir)
	}, pt.Text("one"))
	h.r.PrefetchEnvironment()
	if n := rec.calls.Load(); n != 0 {
		t.Fatalf("PrefetchEnvironment called Preconnect %d times with the opener's gathering pending; want 0", n)
	}
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	h.r.PrefetchEnvironment()
	if n := rec.calls.Load(); n != 1 {
		t.Fatalf("the next message's first key called Preconnect %d times; want 1", n)
	}
}
