package tui

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// The status line's cost is the session's stored cost, the small model's
// title request and the summary request included.
func TestStatusCostIncludesTitleAndSummaryCalls(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Loop.Config.SmallModel = "gpt-4.1-mini" })
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		last := msgs[len(msgs)-1].Content
		switch {
		case strings.HasPrefix(last, "Summarise the conversation above"):
			return pt.Text("## Goal\nShip it.\n\n## Next steps\nNone.")
		case req.Chat.Model == "gpt-4.1-mini":
			return pt.Text("A title")
		}
		return pt.Text("ok " + strings.Repeat("words ", 300))
	})
	for i, q := range []string{"first question", "second", "third"} {
		h.typeText(q)
		h.key("enter")
		h.waitFor("the turn", func(m *Model) bool { return idle(m) && steps(h.srv) == i+1 })
	}
	h.waitFor("the title", func(m *Model) bool { return m.sess.Title == "A title" })
	h.typeText("/compact")
	h.key("enter")
	var want float64
	h.waitFor("the compaction", func(m *Model) bool {
		if m.compacting || m.runner == nil {
			return false
		}
		s, err := h.store.GetSession(context.Background(), m.runner.Session().ID)
		if err != nil || len(h.srv.Requests()) < 5 {
			return false
		}
		want = s.CostUSD
		return true
	})
	h.waitFor("the stored cost on screen", func(m *Model) bool {
		return math.Abs(m.sess.CostUSD-want) < 1e-12 && strings.Contains(screenOf(m), formatCost(want))
	})
}

// steps counts the requests to the session's own model (steps and
// summaries, not titles).
func steps(srv *pt.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Chat.Model == "gpt-4.1" {
			n++
		}
	}
	return n
}

// Esc during a bash command keeps what it had printed on its card, and
// the context figure afterwards is the one `agent context` computes from
// the stored session.
func TestInterruptKeepsBashOutputAndContextMatchesStored(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.Text("a first answer " + strings.Repeat("with some words ", 50)),
		pt.ToolCall("c1", "bash", `{"command":"for i in $(seq 1 40); do echo printed-line-$i; done; sleep 100"}`),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"bash": tools.ModeAllow} })
	h.typeText("first")
	h.key("enter")
	h.waitFor("the first turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.typeText("run it")
	h.key("enter")
	h.waitScreen("printed-line-40")
	h.key("esc")
	h.waitFor("the interrupt", func(m *Model) bool { return idle(m) })
	if s := h.screen(); !strings.Contains(s, "printed-line-1") || !strings.Contains(s, "more lines") {
		t.Errorf("the card lost the output it showed:\n%s", s)
	}
	want, _, err := loop.StoredReading(context.Background(), h.store, h.cfg, tools.NewRegistry(), h.m.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.m.snap.Total != want.Total || h.m.snap.NewEstimate != want.NewEstimate || h.m.snap.Breakdown != want.Breakdown {
		t.Errorf("/context shows %+v\nagent context computes %+v", h.m.snap, want)
	}
	h.typeText("/context")
	h.key("enter")
	h.waitScreen(formatTokens(want.Total))
}
