package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EContextShowsLimitsAndPruneThresholds: `agent context --json` has
// input_limit (null when the model has none), and the prune thresholds in
// effect: the user's as set, the defaults scaled to the window.
func TestE2EContextShowsLimitsAndPruneThresholds(t *testing.T) {
	e := newEnv(t, pt.Text("one"), pt.Text("two"))
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	// gpt-4.1 with a declared 64K window (usable 48K): the user's
	// prune_protect is above a quarter of it and stays; the minimum is the
	// default, scaled to 48K/16.
	if err := os.WriteFile(cfg, []byte(`{"models": {"gpt-4.1": {"context_window": 64000}},
		"compaction": {"prune_protect": 50000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	snapOf := func() map[string]any {
		t.Helper()
		res := e.run("", "context", "-c", "--json")
		if res.code != 0 {
			t.Fatalf("context: %d %s", res.code, res.stderr)
		}
		var snap map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &snap); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	snap := snapOf()
	if v, ok := snap["input_limit"]; !ok || v != nil {
		t.Errorf("input_limit = %v (present %v), want null", v, ok)
	}
	if snap["window"] != float64(64000) || snap["prune_protect"] != float64(50000) || snap["prune_minimum"] != float64(3000) {
		t.Errorf("window %v, prune_protect %v, prune_minimum %v; want 64000, 50000, 3000", snap["window"], snap["prune_protect"], snap["prune_minimum"])
	}
	for _, k := range []string{"total", "basis", "output_reserve", "free", "last_input", "last_output", "new_estimate", "estimate_error", "breakdown"} {
		if _, ok := snap[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	if human := e.run("", "context", "-c"); !strings.Contains(human.stdout, "Prune keeps the newest 50000 tokens of tool outputs") {
		t.Errorf("context text = %q", human.stdout)
	}

	// gpt-5: a 400K window, 272K of input, which is where compaction starts.
	if res := e.run("", "run", "--model", "gpt-5", "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	snap = snapOf()
	if snap["input_limit"] != float64(272000) || snap["compact_at"] != float64(272000) || snap["window"] != float64(400000) {
		t.Errorf("gpt-5: input_limit %v, compact_at %v, window %v", snap["input_limit"], snap["compact_at"], snap["window"])
	}
	if human := e.run("", "context", "-c"); !strings.Contains(human.stdout, "input limit 272000") {
		t.Errorf("context text = %q", human.stdout)
	}
}

// TestE2ECompactionNearIsAnEvent: `agent run --format json` reports the
// context passing 90% of the compaction point (the 32K default window
// compacts at 28672).
func TestE2ECompactionNearIsAnEvent(t *testing.T) {
	call := pt.ToolCallChunks(0, "c1", "ls", "{}", 1)
	e := newEnv(t, pt.Reply(append(call, pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 26000, Completion: 10}))...),
		pt.Text("done"))
	trustUsage(t, e, "m") // the scripted usage stands for a full context
	res := e.run("", "run", "--model", "m", "--format", "json", "list the files")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var near map[string]any
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] == "compaction_near" {
			near = ev
		}
	}
	if near == nil || near["compact_at"] != float64(28672) || near["text"] != "compaction at the next step" || near["next_step"] != true {
		t.Errorf("compaction_near = %v\n%s", near, res.stdout)
	}
}

// TestE2ECompactingIsAnEvent: a compaction is announced when it starts
// (`compacting`, with the messages it summarises), before `compacted`.
func TestE2ECompactingIsAnEvent(t *testing.T) {
	e := newEnv(t,
		pt.Reply(pt.TextChunk("first answer"), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: 29000, Completion: 10})),
		pt.Text("## Goal\nAnswer.\n\n## Done so far\nOne turn.\n\n## Next steps\nNone."),
		pt.Text("done"))
	trustUsage(t, e, "m") // the scripted usage stands for a full context
	if res := e.run("", "run", "--model", "m", "first question"); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "run", "--model", "m", "-c", "--format", "json", "second question")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var types []string
	var compacting map[string]any
	for _, ev := range jsonEvents(t, res.stdout) {
		switch ev["type"] {
		case "compacting":
			compacting = ev
			types = append(types, "compacting")
		case "compacted":
			types = append(types, "compacted")
		}
	}
	if strings.Join(types, ",") != "compacting,compacted" || compacting["summarising"] == float64(0) || compacting["tokens_before"] == float64(0) {
		t.Errorf("events %v, compacting = %v\n%s", types, compacting, res.stdout)
	}
}
