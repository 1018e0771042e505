package loop

import (
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
