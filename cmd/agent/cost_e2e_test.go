package main

import (
	"encoding/json"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// costlyStep is a tool-call step whose usage says 100K prompt tokens and
// 1K of output: $0.208 at gpt-4.1's $2/$8 per million.
func costlyStep(id string) pt.Step {
	return pt.Reply(append(pt.ToolCallChunks(0, id, "ls", "{}", 1),
		pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 100000 + len(id), Completion: 1000}))...)
}

// TestE2EMaxCostStopsBeforeTheStepThatWouldPassIt: with --max-cost 0.62,
// two steps cost $0.42 and a third, which reserves ~100K input tokens and
// at least 4096 tokens of output ($0.23), would pass the cap: it is never
// requested, the run exits 1 and done says "budget".
func TestE2EMaxCostStopsBeforeTheStepThatWouldPassIt(t *testing.T) {
	e := newEnv(t, costlyStep("a"), costlyStep("b"), costlyStep("c"), pt.Text("done"))
	trustUsage(t, e, "gpt-4.1") // the scripted usage stands for ~100K tokens
	res := e.run("", "run", "--model", "gpt-4.1", "--format", "json", "--max-cost", "0.62", "list the files")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d requests made, want 2", n)
	}
	var done map[string]any
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		switch ev["type"] {
		case "done":
			done = ev
		case "error":
			errs = append(errs, ev["message"].(string))
		}
	}
	if done == nil || done["finish_reason"] != "budget" || done["steps"] != float64(2) {
		t.Fatalf("done = %v", done)
	}
	if cost := done["cost_usd"].(float64); cost > 0.62 {
		t.Errorf("cost $%.3f passed the cap", cost)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "of its $0.62 budget") || !strings.Contains(errs[0], "--max-cost") {
		t.Errorf("errors = %q", errs)
	}

	// In text mode the message is on stderr, once.
	e2 := newEnv(t, costlyStep("a"), costlyStep("b"), costlyStep("c"))
	trustUsage(t, e2, "gpt-4.1")
	res = e2.run("", "run", "--model", "gpt-4.1", "--max-cost", "0.30", "list the files")
	if res.code != 1 || strings.Count(res.stderr, "stopped:") != 1 || !strings.Contains(res.stderr, "stopped: this session has cost $0.21 of its $0.30 budget") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	if res := e2.run("", "run", "--max-cost", "-1", "x"); res.code != 2 {
		t.Errorf("--max-cost -1: exit %d, want 2", res.code)
	}
}

// TestE2EInspectShowsPerStepCachedTokens: `agent inspect` lists each
// step's cached tokens (JSON steps) and the session's cache share (text).
func TestE2EInspectShowsPerStepCachedTokens(t *testing.T) {
	e := newEnv(t,
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "ls", "{}", 1), pt.FinishChunk("tool_calls"),
			pt.UsageChunk(pt.Usage{Prompt: 1000, Completion: 10}))...),
		pt.Reply(pt.TextChunk("done"), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: 1100, Cached: 1000, Completion: 5})))
	if res := e.run("", "run", "--model", "gpt-4.1", "list"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "inspect", "-c", "--json")
	if res.code != 0 {
		t.Fatalf("inspect: %d %s", res.code, res.stderr)
	}
	var ins struct {
		Steps []struct {
			Usage struct {
				Input       int64 `json:"input"`
				CachedInput int64 `json:"cached_input"`
			} `json:"usage"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &ins); err != nil {
		t.Fatal(err)
	}
	if len(ins.Steps) != 2 || ins.Steps[0].Usage.CachedInput != 0 || ins.Steps[1].Usage.CachedInput != 1000 || ins.Steps[1].Usage.Input != 1100 {
		t.Fatalf("steps = %+v", ins.Steps)
	}
	if text := e.run("", "inspect", "-c"); !strings.Contains(text.stdout, "prompt cache: 47% of the input read from the cache") ||
		!strings.Contains(text.stdout, "0/1000 1000/1100") {
		t.Errorf("inspect text = %q", text.stdout)
	}
}
