package loop

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// smallModelServer answers title requests, summary requests and steps.
func smallModelServer(h *harness) {
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		last := ""
		if len(msgs) > 0 {
			last = msgs[len(msgs)-1].Content
		}
		switch {
		case strings.HasPrefix(last, "Summarise the conversation above"):
			return pt.Text(summaryText)
		case req.Chat.Model == "gpt-4.1-mini":
			return pt.Text("A title")
		}
		return pt.Text("ok " + strings.Repeat("words ", 200))
	})
}

// The session's cost as the runner reports it (and announces it) is the
// stored one, the small model's title and summary requests included.
func TestSessionCostIncludesTitleAndSummaryCalls(t *testing.T) {
	h := newHarnessWith(t, withSmallModel)
	smallModelServer(h)
	for _, q := range []string{"first question", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
		if q == "first question" {
			select {
			case <-h.r.TitleDone():
			case <-time.After(10 * time.Second):
				t.Fatal("no title")
			}
		}
	}
	if err := h.r.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	stored, err := h.store.GetSession(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	var steps float64
	for _, e := range h.r.History() {
		if e.Message.Role == message.RoleAssistant && !e.Message.Summary {
			steps += e.Message.CostUSD
		}
	}
	if stored.CostUSD <= steps {
		t.Fatalf("stored cost %.6f does not exceed the steps' %.6f: the title and summary calls are not billed", stored.CostUSD, steps)
	}
	if got := h.r.Session().CostUSD; math.Abs(got-stored.CostUSD) > 1e-12 {
		t.Errorf("runner's session cost %.6f, stored %.6f", got, stored.CostUSD)
	}
	ev := h.eventsOf(message.EventSessionUpdated)
	if len(ev) == 0 {
		t.Fatal("no session-updated event")
	}
	if got := ev[len(ev)-1].Session.CostUSD; math.Abs(got-stored.CostUSD) > 1e-12 {
		t.Errorf("last session-updated event's cost %.6f, stored %.6f", got, stored.CostUSD)
	}
}
