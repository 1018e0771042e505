package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Review 6 (prompt.go PrefetchEnvironment, shellwarm.go). The TUI warms
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
func TestReview6PrefetchAfterCloseWarmsNothing(t *testing.T) {
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
