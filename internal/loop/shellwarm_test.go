package loop

import (
	"context"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// shellRecorder records the shells warmed and the requests streamed.
type shellRecorder struct {
	provider.Provider
	mu     sync.Mutex
	warmed []provider.Request
	sent   []provider.Request
}

func (p *shellRecorder) WarmShell(req provider.Request) {
	p.mu.Lock()
	p.warmed = append(p.warmed, req)
	p.mu.Unlock()
	p.Provider.(provider.ShellWarmer).WarmShell(req)
}

func (p *shellRecorder) Stream(ctx context.Context, req provider.Request) (provider.Stream, error) {
	p.mu.Lock()
	p.sent = append(p.sent, req)
	p.mu.Unlock()
	return p.Provider.Stream(ctx, req)
}

// TestPrefetchWarmsTheShellTheRequestSends: the shell the first key has
// the provider encode is the next request's: its model, output cap,
// effort, cache marks or not, and the same tools (the slice itself, which
// the provider's kept shell is keyed by); for an explicitly cached model
// too.
func TestPrefetchWarmsTheShellTheRequestSends(t *testing.T) {
	for _, cache := range []string{"", config.CacheExplicit} {
		rec := &shellRecorder{}
		h := newHarnessWith(t, func(o *Options, c *config.Config) {
			rec.Provider = o.Provider
			o.Provider = rec
			if cache != "" {
				info, _ := c.ModelInfo(c.Model)
				info.Cache = cache
				c.Models = map[string]config.ModelInfo{c.Model: info}
			}
		}, pt.Text("one"))
		h.r.PrefetchEnvironment()
		h.r.stepper.stopWarming()
		if res := h.turn("first"); res.Err != nil {
			t.Fatal(res.Err)
		}
		rec.mu.Lock()
		if len(rec.warmed) != 1 || len(rec.sent) != 1 {
			t.Fatalf("cache %q: warmed %d shells, sent %d requests", cache, len(rec.warmed), len(rec.sent))
		}
		w, s := rec.warmed[0], rec.sent[0]
		rec.mu.Unlock()
		if w.Model != s.Model || w.MaxTokens != s.MaxTokens || w.Effort != s.Effort ||
			(len(w.CacheBreakpoints) > 0) != (len(s.CacheBreakpoints) > 0) || len(w.Messages) != 0 {
			t.Errorf("cache %q: warmed %+v\nsent %+v", cache, w, s)
		}
		if len(s.Tools) == 0 || len(w.Tools) != len(s.Tools) || &w.Tools[0] != &s.Tools[0] {
			t.Errorf("cache %q: warmed %d tools, sent %d, not the same slice", cache, len(w.Tools), len(s.Tools))
		}
		if cache != "" && len(s.CacheBreakpoints) == 0 {
			t.Errorf("the explicitly cached model's request has no marks")
		}
	}
}

// PrefetchEnvironment, shellwarm.go. The TUI warms
// a runner it opened on a fresh chat's first key on a goroutine of its
// own (tui/earlyopen.go); only the chat's Close waits for that warming.
// An open begun since (a resume in the fresh chat) closes the early
// runner in its swap (tui/session.go opener) without waiting for it, so
// PrefetchEnvironment can run during or after Runner.Close: warmShell's
// running.Add then races stopWarming's Wait (the -race report 4a260d7
// fixed for the chat's Close only), and after Close returned the runner
// still starts a gathering and a shell warming nobody waits for. A
// closed runner should warm nothing (Close marks it under the lock the
// warming's start takes).
func TestPrefetchAfterCloseWarmsNothing(t *testing.T) {
	rec := &shellRecorder{}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		rec.Provider = o.Provider
		o.Provider = rec
	}, pt.Text("one"))
	if err := h.r.Close(); err != nil {
		t.Fatal(err)
	}
	h.r.PrefetchEnvironment()
	h.r.stepper.stopWarming()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.warmed) != 0 {
		t.Fatalf("a closed runner warmed %d shells after its Close returned", len(rec.warmed))
	}
}
