package loop

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// bigStep is a tool-call step whose usage says 100K prompt tokens and 1K
// of output: $0.208 at gpt-4.1's $2/$8 per million.
func bigStep(id string) pt.Step {
	s := pt.Reply(append(pt.ToolCallChunks(0, id, "bash", `{"command":"echo `+id+`"}`, 1),
		pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 100000, Completion: 1000}))...)
	return s
}

// The cap stops the turn before the request that would pass it: each
// request reserves its input and up to gpt-4.1's 32768 tokens of output
// ($0.26), at least 4096 ($0.03); after two steps ($0.416), a third of
// ~100K input tokens ($0.20) and its least output would pass $0.62.
func TestMaxCostStopsBeforeTheStepThatWouldPassIt(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		o.MaxCostUSD, o.TrustUsage = 0.62, true
		o.BudgetHint = "raise it with --max-cost USD" // agent run's (the front end says how)
	},
		bigStep("a"), bigStep("b"), bigStep("c"), pt.Text("done"))
	res := h.turn("go")
	if res.FinishReason != FinishBudget || res.Err == nil || res.Steps != 2 {
		t.Fatalf("turn = %+v, want finish %q after 2 steps", res, FinishBudget)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests made, want 2", n)
	}
	errs := h.eventsOf(message.EventError)
	if len(errs) != 1 || !strings.Contains(errs[0].Err, "this session has cost $0.42 of its $0.62 budget, with $0.00 reserved") ||
		!strings.Contains(errs[0].Err, "up to $0.03 of output") ||
		!strings.Contains(errs[0].Err, "--max-cost") {
		t.Fatalf("error events = %+v", errs)
	}
	if cost := h.r.Session().CostUSD; cost > 0.62 {
		t.Errorf("session cost $%.3f passed the cap", cost)
	}

	// Raised, the session goes on.
	h.r.SetBudget(5)
	if res := h.turn("go on"); res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("after raising: %+v", res)
	}
}

// A model without a price cannot be held to the cap: said once, and the
// turns run.
func TestBudgetOnUnpricedModelIsSaidOnce(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		o.MaxCostUSD = 0.01
		c.Models["gpt-4.1"] = config.ModelInfo{ContextWindow: 128000, MaxOutput: 4096}
	}, bigStep("a"), pt.Text("one"), pt.Text("two"))
	for _, q := range []string{"first", "second"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatalf("turn %q: %+v", q, res)
		}
	}
	var notes []string
	for _, ev := range h.eventsOf(message.EventNote) {
		if strings.Contains(ev.Note, "cannot be enforced") {
			notes = append(notes, ev.Note)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "models.gpt-4.1.price") {
		t.Fatalf("notes = %q, want one saying the budget cannot be enforced", notes)
	}
}

// A cap smaller than a request's full output cap does not refuse the
// request: its max_tokens shrinks to what the cap can still pay for
// (gpt-4.1's 32768 tokens of output are $0.26; a $0.10 cap pays for about
// 12,000), and the request goes out.
func TestStepOutputShrinksToWhatTheCapCanPay(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.MaxCostUSD = 0.10 }, pt.Text("done"))
	res := h.turn("hi")
	if res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn = %+v, want it answered within a $0.10 cap", res)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0].Chat.MaxCompletionTokens + reqs[0].Chat.MaxTokens
	if got < minBudgetOutputTokens || got >= 32768 || got > 12500 {
		t.Fatalf("max tokens sent = %d, want what $0.10 pays for at $8/M (≤ 12,500) and at least %d", got, minBudgetOutputTokens)
	}
}

// Below the floor of output a step needs, the request is refused.
func TestStepRefusedWhenTheCapCannotPayTheFloor(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.MaxCostUSD = 0.02 }, pt.Text("done"))
	res := h.turn("hi")
	if res.FinishReason != FinishBudget || len(h.srv.Requests()) != 0 {
		t.Fatalf("turn = %+v with %d requests, want refused before any request", res, len(h.srv.Requests()))
	}
}
