package tui

import (
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestFirstKeyLoadsTheTimeZone: a new chat's first key starts loading
// the local time zone (its first use is otherwise the system prompt's
// date, between Enter and the first request), once per message typed.
func TestFirstKeyLoadsTheTimeZone(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one")})
	calls := 0
	was := warmZone
	warmZone = func() { calls++ }
	t.Cleanup(func() { warmZone = was })
	h.typeText("hello")
	if calls != 1 {
		t.Fatalf("warmZone called %d times on typing a message, want once (on its first key)", calls)
	}
}
