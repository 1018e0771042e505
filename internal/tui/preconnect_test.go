package tui

import (
	"sync/atomic"
	"testing"

	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// preconnectRecorder is a provider that records Preconnect calls.
type preconnectRecorder struct {
	provider.Provider
	calls atomic.Int32
}

func (p *preconnectRecorder) Preconnect() { p.calls.Add(1) }

// TestNewChatPreconnectsOnFirstKey checks that a new chat, which has no
// session until its first message is sent, has the provider open its
// connection when that message's first key is typed, once.
func TestNewChatPreconnectsOnFirstKey(t *testing.T) {
	rec := &preconnectRecorder{}
	h := newHarness(t, []pt.Step{pt.Text("hello")}, func(o *Options) {
		rec.Provider = o.Loop.Provider
		o.Loop.Provider = rec
	})
	if !h.m.fresh || h.m.runner != nil {
		t.Fatal("want a new chat without a session")
	}
	h.typeText("hi there")
	if n := rec.calls.Load(); n != 1 {
		t.Fatalf("Preconnect called %d times while typing the first message; want 1", n)
	}
}
