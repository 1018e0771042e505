package loop

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestForecastOfAReopenedSessionCountsTurns: a session continued by a new
// process (`agent run -c`, a resumed chat) forecasts compaction with a turn
// count from the turns it had before, as the process that ran them all
// does (TestCompactionNearIsAnnounced), instead of "compaction soon".
func TestForecastOfAReopenedSessionCountsTurns(t *testing.T) {
	h := newHarnessWith(t, unknownModel)
	for _, prompt := range []int{20000, 22000, 24000, 26000, 26500} {
		h.srv.Add(textWithUsage("ok", pt.Usage{Prompt: prompt, Completion: 10}))
	}
	ctx := context.Background()
	id := ""
	for i := range 5 {
		// Each turn in a process of its own.
		if i > 0 {
			opt := h.r.opt
			if err := h.r.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(ctx, opt, id)
			if err != nil {
				t.Fatal(err)
			}
			h.r = r
		}
		if res := h.turn(fmt.Sprintf("turn %d", i+1)); res.Err != nil {
			t.Fatal(res.Err)
		}
		id = h.r.Session().ID
	}
	ev := h.eventsOf(message.EventCompactionNear)
	if len(ev) != 1 {
		t.Fatalf("%d announcements, want 1: %+v", len(ev), ev)
	}
	if f := ev[0].Forecast; f.TurnsLeft != 2 || f.NextStep || f.Text != "compaction in about 2 turns" {
		t.Errorf("forecast of the reopened session = %+v, want 2 turns left as in one process", f)
	}
}
