package loop

import (
	"context"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestReopenedSessionKeepsItsCeiling: a context-length refusal logged in
// a session lowers its compaction point again when the session is
// reopened, read among many other events of its log.
func TestReopenedSessionKeepsItsCeiling(t *testing.T) {
	h := newHarness(t, pt.Text("hi"))
	if res := h.turn("hello"); res.Err != nil {
		t.Fatal(res.Err)
	}
	ctx := context.Background()
	id := h.r.Session().ID
	before := h.r.Reading().CompactAt
	for i := 0; i < 50; i++ {
		if err := h.store.LogEvent(ctx, id, "estimate", map[string]int64{"estimate": 1, "actual": 1}); err != nil {
			t.Fatal(err)
		}
	}
	ceiling := before / 2
	if err := h.store.LogEvent(ctx, id, "context_limit", message.ContextLimit{Model: h.r.Session().Model, Ceiling: ceiling}); err != nil {
		t.Fatal(err)
	}
	opt := h.r.opt
	if err := h.r.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, opt, id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Reading().CompactAt; got >= before || got > ceiling {
		t.Fatalf("compaction point after reopening = %d, want at most the ceiling %d (was %d)", got, ceiling, before)
	}
}
