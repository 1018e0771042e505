package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// costly is a tool-call step whose usage says 100K prompt tokens: $0.208
// at gpt-4.1's prices.
func costly(id string) pt.Step {
	return pt.Reply(append(pt.ToolCallChunks(0, id, "ls", "{}", 1),
		pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 100000, Completion: 1000}))...)
}

// The chat's budget stops the turn with an error saying how to raise it;
// /budget raises it and the next message carries on.
func TestBudgetStopsTheTurnAndRaisesWithSlashBudget(t *testing.T) {
	h := newHarness(t, []pt.Step{costly("a"), costly("b"), pt.Text("done")},
		func(o *Options) { o.Loop.MaxCostUSD, o.Loop.TrustUsage = 0.30, true })
	h.typeText("list")
	h.key("enter")
	h.waitFor("the stop", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "budget") })
	if s := h.screen(); !strings.Contains(s, "of its $0.30 budget") || !strings.Contains(s, "/budget") {
		t.Fatalf("screen:\n%s", s)
	}
	if s := h.screen(); strings.Contains(s, "--max-cost") || !strings.Contains(s, "raise it with /budget USD") {
		t.Fatalf("the chat's notice names agent run's flag, which the chat does not take:\n%s", s)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	h.typeText("/budget 5")
	h.key("enter")
	h.waitScreen("budget $5.000 for this session")
	h.typeText("go on")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 3 })
	h.waitScreen("done")
}

func TestCacheLabel(t *testing.T) {
	for _, c := range []struct {
		last, session message.Usage
		want          string
	}{
		{message.Usage{Input: 1000}, message.Usage{Input: 1000}, ""}, // nothing cached yet
		{message.Usage{Input: 1000, CachedInput: 820}, message.Usage{Input: 1000, CachedInput: 820}, "cache 82%"},
		{message.Usage{Input: 1000, CachedInput: 900}, message.Usage{Input: 3000, CachedInput: 900}, "cache 90% (30% session)"},
		{message.Usage{Input: 1000, CacheWrite: 1000}, message.Usage{Input: 1000, CacheWrite: 1000}, "cache 0%"},
	} {
		if got := cacheLabel(c.last, c.session); got != c.want {
			t.Errorf("cacheLabel(%+v, %+v) = %q, want %q", c.last, c.session, got, c.want)
		}
	}
}

// The status line shows the last step's cache hit rate.
func TestStatusLineShowsCacheHits(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("hi"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 2000, Cached: 1500, Completion: 10}))})
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) })
	h.waitScreen("cache 75%")
}

// A model without a price costs "unknown", not $0: in the status line once
// it has used tokens, in /budget and in the session picker's entries.
func TestCostOfAnUnpricedModelIsUnknown(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("hi"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 2000, Completion: 10}))},
		func(o *Options) {
			o.Loop.Config.Models["gpt-4.1"] = config.ModelInfo{ContextWindow: 128000, MaxOutput: 4096}
		})
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) })
	h.waitScreen("cost unknown")
	h.typeText("/budget")
	h.key("enter")
	h.waitScreen("this session has cost unknown")

	cfg := h.m.opt.Loop.Config
	e := sessionEntry(cfg, message.Session{ID: "s", Model: "gpt-4.1"}, "")
	if !strings.HasSuffix(e.Detail, "cost unknown") {
		t.Errorf("picker entry of an unpriced session: %q", e.Detail)
	}
	e = sessionEntry(cfg, message.Session{ID: "s", Model: "gpt-4o", CostUSD: 0.25}, "")
	if !strings.HasSuffix(e.Detail, "$0.250") {
		t.Errorf("picker entry of a priced session: %q", e.Detail)
	}
	for _, c := range []struct {
		model string
		usd   float64
		want  string
	}{
		{"gpt-4.1", 0, "cost unknown"},
		{"gpt-4.1", 0.5, "$0.500"}, // a provider's reported cost
		{"gpt-4o", 0, "$0"},
		{"no-such-model", 0, "cost unknown"},
	} {
		if got := costLabel(cfg, c.model, c.usd); got != c.want {
			t.Errorf("costLabel(%q, %v) = %q, want %q", c.model, c.usd, got, c.want)
		}
	}
}
