package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestFailingSummariserIsGivenUpOnQuickly (issue 27 item 5): a summary
// endpoint that keeps answering 5xx costs a compaction at most
// SummaryRetryPolicy's attempts per summary request and
// summaryRetryTotal of waiting in all, then the model-free fallback
// compacts; the failed attempts say they gave up, the last outcome is the
// fallback. Before, each summary attempt was retried like a turn (8
// attempts, back-off up to 60 s: 16 requests, ~190 s).
func TestFailingSummariserIsGivenUpOnQuickly(t *testing.T) {
	steps := []pt.Step{pt.Text(long("one", 10)), pt.Text(long("two", 10)), pt.Text(long("three", 10))}
	for range 20 {
		steps = append(steps, pt.HTTPError(503, nil, `{"error":{"message":"summariser down"}}`))
	}
	h := newHarness(t, steps...)
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	h.mu.Lock()
	h.sleeps = nil
	h.mu.Unlock()
	if err := h.r.Compact(context.Background(), ""); err != nil {
		t.Fatalf("compact: %v", err)
	}
	sent := len(h.srv.Requests()) - 3
	if max := 2 * SummaryRetryPolicy.Attempts; sent > max {
		t.Errorf("%d summary requests for one compaction, want at most %d", sent, max)
	}
	var waited time.Duration
	h.mu.Lock()
	for _, d := range h.sleeps {
		waited += d
	}
	h.mu.Unlock()
	if waited > summaryRetryTotal {
		t.Errorf("waited %s between summary retries, want at most %s", waited, summaryRetryTotal)
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) == 0 || ev[len(ev)-1].Compaction.Outcome != message.CompactionFallback {
		t.Fatalf("the compaction did not end in the fallback: %d events", len(ev))
	}
	for _, e := range ev[:len(ev)-1] {
		if c := e.Compaction; c.Outcome != message.CompactionFailed || !strings.Contains(c.Error, "gave up") {
			t.Errorf("failed attempt = %+v, want it to say the summariser was given up on", *c)
		}
	}
}
