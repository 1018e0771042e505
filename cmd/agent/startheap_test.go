package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// gcPercent reads the collector's percentage.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// The relaxed start turns the percentage off under a memory limit, and
// the first tool call puts both back; a text part does not.
func TestStartupGCIsRestoredAtTheFirstToolCall(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	g := relaxStartupGC()
	defer g.restore()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l >= limit || l < startupHeapBudget {
		t.Fatalf("relaxed: percent %d, limit %d; want -1 and a limit under %d, at least the budget", p, l, limit)
	}
	var seen []message.PartType
	obs := g.observe(func(ev message.Event) { seen = append(seen, ev.Part.Type) })
	obs(message.Event{Type: message.EventPartUpdated, Part: &message.Part{Type: message.PartText}})
	if p := gcPercent(); p != -1 {
		t.Fatalf("a text part restored the collector (percent %d)", p)
	}
	obs(message.Event{Type: message.EventPartUpdated, Part: &message.Part{Type: message.PartTool}})
	select {
	case <-g.restored:
	default:
		t.Fatal("the first tool call did not restore the collector")
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != before || l != limit {
		t.Fatalf("restored: percent %d, limit %d; want %d and %d", p, l, before, limit)
	}
	if len(seen) != 2 {
		t.Fatalf("the observer passed %d events on, want 2", len(seen))
	}
}

// A collection before the first tool call (the budget spent) gives the
// normal collector back.
func TestStartupGCIsRestoredByACollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := gcPercent()
	g := relaxStartupGC()
	defer g.restore()
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC() // the sentinel's cleanup runs after the cycle that finds it
		select {
		case <-g.restored:
			if p := gcPercent(); p != before {
				t.Fatalf("percent %d after the collection, want %d", p, before)
			}
			return
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatal("a collection did not restore the collector")
		}
	}
}

// A user's GOGC or GOMEMLIMIT is theirs: nothing changes.
func TestStartupGCLeavesTheUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "200")
			before := gcPercent()
			g := relaxStartupGC()
			if g != nil || gcPercent() != before || debug.SetMemoryLimit(-1) != math.MaxInt64 {
				g.restore()
				t.Fatalf("the collector was relaxed with %s set", env)
			}
			g.restore()        // a nil one does nothing
			_ = g.observe(nil) // nor does its observer
			g.observe(func(message.Event) {})(message.Event{})
		})
	}
}
