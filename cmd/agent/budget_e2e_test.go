package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// pricedConfig prices gpt-4.1 at $2/$8 per million tokens with 1000 tokens
// of output at most, so that every request reserves $0.008 of output.
func pricedConfig(t *testing.T, e *env, extra map[string]any) {
	t.Helper()
	cfg := map[string]any{"models": map[string]any{"gpt-4.1": map[string]any{
		"context_window": 128000, "max_output": 1000, "price": map[string]any{"input": 2.0, "output": 8.0},
	}}}
	for k, v := range extra {
		cfg[k] = v
	}
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), cfg)
}

// TestE2EMaxCostHoldsWithParallelSubagents: with --max-cost 0.05, a first
// step that makes 8 task calls does not let 8 children each spend what is
// left: they share the session's ledger, at most task.max_parallel (4) run
// at once at the fake, a child that cannot reserve never sends a request,
// the session's total stays within the cap, and the run exits 1 naming
// what was spent and reserved.
func TestE2EMaxCostHoldsWithParallelSubagents(t *testing.T) {
	var calls []pt.Call
	for i := range 8 {
		calls = append(calls, pt.Call{ID: fmt.Sprintf("call_%d", i), Name: "task",
			Args: fmt.Sprintf(`{"description":"look %d","prompt":"Find needle %d."}`, i, i)})
	}
	// The parent's first step costs $0.0036: 1000 tokens in, 200 out.
	first := pt.ToolCalls(calls...)
	first.Chunks[len(first.Chunks)-1] = pt.UsageChunk(pt.Usage{Prompt: 1000, Completion: 200})
	e := newEnv(t, first)
	pricedConfig(t, e, nil)
	e.srv.Handle(func(req pt.Request) pt.Step {
		if len(req.Chat.Messages) > 0 && strings.Contains(req.Chat.Messages[0].Content, "You are a subagent") {
			// A child answers at once for $0.009 (500 in, 1000 out),
			// paced so that children running together overlap here.
			return pt.Reply(pt.Delay(150*time.Millisecond), pt.TextChunk("Found it."), pt.FinishChunk("stop"),
				pt.UsageChunk(pt.Usage{Prompt: 500, Completion: 1000}))
		}
		return pt.Text("All found.")
	})

	res := e.run("", "run", "--format", "json", "--max-cost", "0.05", "find the needles")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
	}
	var done map[string]any
	var errs []string
	refused, answered := 0, 0
	for _, ev := range jsonEvents(t, res.stdout) {
		switch ev["type"] {
		case "done":
			done = ev
		case "error":
			errs = append(errs, ev["message"].(string))
		case "tool_result":
			out, _ := ev["output"].(string)
			switch {
			case strings.HasPrefix(out, "Found it."):
				answered++
			case strings.Contains(out, "budget"):
				refused++
			default:
				t.Errorf("task result %q", out)
			}
		}
	}
	t.Logf("cost $%v of $0.05; %d children answered, %d refused; %d requests, %d at most in flight",
		done["cost_usd"], answered, refused, len(e.srv.Requests()), e.srv.MaxInFlight())
	if done == nil || done["finish_reason"] != "budget" {
		t.Fatalf("done = %v", done)
	}
	if cost := done["cost_usd"].(float64); cost > 0.05 {
		t.Errorf("the session cost $%.4f, past its $0.05 cap", cost)
	}
	if answered+refused != 8 || refused == 0 || answered == 0 {
		t.Errorf("%d children answered and %d were refused, want 8 with some of each", answered, refused)
	}
	// The parent's first step and the children that answered; no request
	// of a refused child, nor the parent's second step.
	if n := len(e.srv.Requests()); n != 1+answered {
		t.Errorf("%d requests reached the server, want %d", n, 1+answered)
	}
	if m := e.srv.MaxInFlight(); m > 4 || m < 2 {
		t.Errorf("%d requests were in flight at once, want 2 to task.max_parallel (4)", m)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "of its $0.05 budget") || !strings.Contains(errs[0], "reserved by requests in flight") ||
		!strings.Contains(errs[0], "the next request would pass it") {
		t.Errorf("errors = %q, want one naming what was spent and reserved", errs)
	}

	// task.max_parallel 1: the children run one after another.
	e2 := newEnv(t, first)
	pricedConfig(t, e2, map[string]any{"task": map[string]any{"max_parallel": 1}})
	e2.srv.Handle(func(req pt.Request) pt.Step {
		return pt.Reply(pt.Delay(50*time.Millisecond), pt.TextChunk("Found it."), pt.FinishChunk("stop"),
			pt.UsageChunk(pt.Usage{Prompt: 500, Completion: 10}))
	})
	if res := e2.run("", "run", "--format", "json", "find the needles"); res.code != 0 {
		t.Fatalf("max_parallel 1: exit %d: %s", res.code, res.stderr)
	}
	if n, m := len(e2.srv.Requests()), e2.srv.MaxInFlight(); n != 10 || m != 1 {
		t.Errorf("max_parallel 1: %d requests, %d at once; want 10, one at a time", n, m)
	}
}

// TestE2EMaxCostRefusesAnUnpricedModel: a cap cannot be held against a
// model without a price: --max-cost exits 2 before any request, naming
// the model and the config key to set.
func TestE2EMaxCostRefusesAnUnpricedModel(t *testing.T) {
	e := newEnv(t)
	res := e.run("", "run", "--model", "my-local-model", "--max-cost", "0.10", "hello")
	if res.code != 2 || !strings.Contains(res.stderr, "my-local-model has no price") ||
		!strings.Contains(res.stderr, "models.my-local-model.price") {
		t.Errorf("exit %d, stderr %q; want 2 and a message naming the model's price", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests made, want none", n)
	}
	// Without a cap it runs.
	e.srv.Add(pt.Text("hi"))
	if res := e.run("", "run", "--model", "my-local-model", "hello"); res.code != 0 {
		t.Fatalf("no cap: exit %d: %s", res.code, res.stderr)
	}
	// Its cost is unknown, not $0.0000, wherever a cost is printed.
	list := e.run("", "sessions")
	ins := e.run("", "inspect", "-c")
	rows := e.listJSON()
	if len(rows) != 1 {
		t.Fatalf("sessions = %+v", rows)
	}
	show := e.run("", "sessions", "show", rows[0].ID)
	for name, out := range map[string]string{"sessions": list.stdout, "inspect": ins.stdout, "sessions show": show.stdout} {
		if !strings.Contains(out, "unknown") || strings.Contains(out, "$0.0000") {
			t.Errorf("%s prints the unpriced session's cost as:\n%s", name, out)
		}
	}
}
