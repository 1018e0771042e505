package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/tokens"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// usageServer is a scripted provider that reports the prompt tokens of
// each request as its body's bytes/4 times factor (1: honest, 10: a
// provider over-reporting tenfold). script answers the nth chat request
// (0-based); a summary request is answered with a summary and counted.
type usageServer struct {
	mu        sync.Mutex
	factor    int
	n         int
	summaries int
	script    func(n int, req openai.ChatCompletionRequest) pt.Step
}

const e2eSummary = "## Goal\nShip.\n\n## Standing user instructions and constraints\nNone.\n\n## Done so far\nWork.\n\n## Files touched\nNone.\n\n## Current state\nFine.\n\n## Next steps\nNone."

func (u *usageServer) handle(req pt.Request) pt.Step {
	u.mu.Lock()
	defer u.mu.Unlock()
	prompt := len(req.Body) / 4 * u.factor
	msgs := req.Chat.Messages
	if len(msgs) > 0 && strings.Contains(msgs[len(msgs)-1].Content, "## Next steps") && len(req.Chat.Tools) == 0 {
		u.summaries++
		return pt.Reply(pt.TextChunk(e2eSummary), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: prompt, Completion: 60}))
	}
	step := u.script(u.n, req.Chat)
	u.n++
	return pt.Reply(append(step.Chunks, pt.UsageChunk(pt.Usage{Prompt: prompt, Completion: 20}))...)
}

// answer is a text step without usage (usageServer adds it).
func answer(s string) pt.Step { return pt.Reply(pt.TextChunk(s), pt.FinishChunk("stop")) }

// bashCall is a tool-call step running command (usageServer adds usage).
func bashCall(id, command string) pt.Step {
	args, _ := json.Marshal(map[string]string{"command": command})
	return pt.Reply(append(pt.ToolCallChunks(0, id, "bash", string(args), 2), pt.FinishChunk("tool_calls"))...)
}

// writeModelConfig gives gpt-4.1 a small window in the user's config.
func writeModelConfig(t *testing.T, e *env, window, maxOutput int) {
	t.Helper()
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"models": {"gpt-4.1": {"context_window": %d, "max_output": %d}}}`, window, maxOutput)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contextJSON(t *testing.T, e *env) map[string]any {
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

// TestE2EPruneThatFitsSendsNoSummary: the compaction point is crossed at
// the start of a turn, and pruning the first turn's old tool outputs
// brings the request well under it: no summary request goes to the
// server, the inspector shows the prune and no compaction (issue 27 item
// 2: "prune 15444 → 5090, then compaction 5090 → 4777").
func TestE2EPruneThatFitsSendsNoSummary(t *testing.T) {
	const line = "the quick brown fox jumps over the lazy dog"
	u := &usageServer{factor: 1, script: func(n int, _ openai.ChatCompletionRequest) pt.Step {
		switch n {
		case 0:
			return bashCall("c1", fmt.Sprintf("yes '%s' | head -n 500", line))
		case 1:
			return bashCall("c2", fmt.Sprintf("yes '%s' | head -n 501", line))
		}
		return answer("done")
	}}
	e := newEnv(t)
	e.srv.Handle(u.handle)
	writeModelConfig(t, e, 16000, 2000) // compaction at 14000
	if res := e.run("", "run", "--yes", "turn one: look at the output"); res.code != 0 {
		t.Fatalf("run 1: %d %s", res.code, res.stderr)
	}
	if res := e.run("", "run", "-c", "turn two"); res.code != 0 {
		t.Fatalf("run 2: %d %s", res.code, res.stderr)
	}
	before := contextJSON(t, e)
	// A long message takes the request over the compaction point.
	long := "turn three: " + strings.Repeat("please keep this in mind. ", 500)
	if res := e.run("", "run", "-c", long); res.code != 0 {
		t.Fatalf("run 3: %d %s", res.code, res.stderr)
	}
	after := contextJSON(t, e)
	compactAt := after["compact_at"].(float64)
	t.Logf("before turn three %v, after %v, compaction at %v", before["total"], after["total"], compactAt)
	if u.summaries > 0 {
		t.Errorf("%d summary requests after a prune that made the request fit", u.summaries)
	}
	ins := e.run("", "inspect", "-c", "--json")
	var got inspection
	if err := json.Unmarshal([]byte(ins.stdout), &got); err != nil {
		t.Fatalf("inspect: %v %s", err, ins.stderr)
	}
	pruned := false
	for _, tl := range got.Timeline {
		switch {
		case tl.Kind == "prune":
			pruned = true
			if float64(tl.TokensAfter) > 0.75*compactAt {
				t.Errorf("prune left %d tokens, not well under the compaction point %v", tl.TokensAfter, compactAt)
			}
		case strings.HasPrefix(tl.Kind, "compaction"):
			t.Errorf("timeline has %s %d → %d after a prune that fit", tl.Kind, tl.TokensBefore, tl.TokensAfter)
		}
	}
	if !pruned || got.Summaries != 0 {
		t.Errorf("want a prune and no summary: %+v", got)
	}
}

// trustUsage writes a user config that trusts the usage model reports
// (trust_usage): for tests whose scripted usage stands for a context
// larger than the text they send, which the usage sanity check would
// otherwise ignore.
func trustUsage(t *testing.T, e *env, model string) {
	t.Helper()
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"models": {%q: {"trust_usage": true}}}`, model)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestE2EOverReportedUsageIsSuspect: a provider reporting ten times the
// prompt tokens does not make the agent compact turn after turn; `agent
// context --json` marks the report as suspect beside our own count, and
// `agent inspect` notes it once (issue 27 item 4: compactions on 28 of
// 30 turns).
func TestE2EOverReportedUsageIsSuspect(t *testing.T) {
	const turns = 8
	u := &usageServer{factor: 10, script: func(n int, _ openai.ChatCompletionRequest) pt.Step {
		if n%2 == 0 {
			return bashCall(fmt.Sprintf("c%d", n), fmt.Sprintf("yes 'line %d of the build log' | head -n 60", n))
		}
		return answer("The change is done and the tests pass.")
	}}
	e := newEnv(t)
	e.srv.Handle(u.handle)
	writeModelConfig(t, e, 16000, 2000)
	for i := 1; i <= turns; i++ {
		args := []string{"run", "--yes", "--format", "json", "-c", fmt.Sprintf("turn %d: improve the next function", i)}
		if i == 1 {
			args = []string{"run", "--yes", "--format", "json", "turn 1: improve the next function"}
		}
		res := e.run("", args...)
		if res.code != 0 {
			t.Fatalf("turn %d: exit %d: %s", i, res.code, res.stderr)
		}
	}
	if u.summaries > 1 {
		t.Errorf("%d summary requests in %d turns with usage reported ×10", u.summaries, turns)
	}
	snap := contextJSON(t, e)
	reported, _ := snap["reported_input"].(float64)
	estimate, _ := snap["request_estimate"].(float64)
	total, _ := snap["total"].(float64)
	if snap["usage_suspect"] != true || reported < 5*estimate || estimate <= 0 || snap["basis"] != "estimated" || total > 2*estimate {
		t.Errorf("context = usage_suspect %v reported %v estimate %v total %v basis %v", snap["usage_suspect"], reported, estimate, total, snap["basis"])
	}
	human := e.run("", "context", "-c")
	if !strings.Contains(human.stdout, "report ignored") {
		t.Errorf("agent context does not show the suspect report:\n%s", human.stdout)
	}
	ins := e.run("", "inspect", "-c", "--json")
	var got inspection
	if err := json.Unmarshal([]byte(ins.stdout), &got); err != nil {
		t.Fatalf("inspect: %v %s", err, ins.stderr)
	}
	notes := 0
	for _, tl := range got.Timeline {
		if tl.Kind == "usage_suspect" {
			notes++
		}
	}
	if notes != 1 {
		t.Errorf("%d usage_suspect rows in the timeline, want 1: %+v", notes, got.Timeline)
	}
	if text := e.run("", "inspect", "-c"); !strings.Contains(text.stdout, "usage_suspect") {
		t.Errorf("inspect text:\n%s", text.stdout)
	}
}

// TestE2EContextWarnsOfMissingUsage: `agent context` shows the "provider
// sent no usage" warning the chat shows after a call without usage
// (issue 27 item 8), in text and JSON.
func TestE2EContextWarnsOfMissingUsage(t *testing.T) {
	e := newEnv(t, answer("no usage here"))
	if res := e.run("", "run", "hello"); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	snap := contextJSON(t, e)
	warnings, _ := snap["warnings"].([]any)
	found := false
	for _, w := range warnings {
		found = found || w == tokens.WarnNoUsage
	}
	if !found || snap["basis"] != "estimated" {
		t.Errorf("context: basis %v warnings %v, want %q", snap["basis"], warnings, tokens.WarnNoUsage)
	}
	if human := e.run("", "context", "-c"); !strings.Contains(human.stdout, tokens.WarnNoUsage) {
		t.Errorf("agent context:\n%s", human.stdout)
	}
}

// TestE2EContextRowsAreLabelled: `agent context` labels each row actual,
// estimated or back-calculated, and shows the reasoning sent back to a
// model that takes it as a row of its own (issue 27 item 9).
func TestE2EContextRowsAreLabelled(t *testing.T) {
	e := newEnv(t, pt.Reply(pt.ReasoningChunk(strings.Repeat("I should think about the files first. ", 40), "reasoning_content"),
		pt.TextChunk("done"), pt.FinishChunk("stop"), pt.AutoUsageChunk()))
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"models": {"gpt-4.1": {"reasoning_roundtrip": true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := e.run("", "run", "hello"); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	snap := contextJSON(t, e)
	labels, _ := snap["labels"].(map[string]any)
	breakdown, _ := snap["breakdown"].(map[string]any)
	want := map[string]any{"total": "actual", "system": "estimated", "tools": "estimated", "messages": "back-calculated", "pins": "estimated", "reasoning": "estimated"}
	for k, v := range want {
		if labels[k] != v {
			t.Errorf("labels[%s] = %v, want %v (labels %v)", k, labels[k], v, labels)
		}
	}
	if r, _ := breakdown["reasoning"].(float64); r < 200 || r > breakdown["messages"].(float64) {
		t.Errorf("breakdown = %v: want a reasoning row of ~360 tokens within the messages", breakdown)
	}
	human := e.run("", "context", "-c").stdout
	for _, s := range []string{"of which reasoning", "back-calculated", "estimated"} {
		if !strings.Contains(human, s) {
			t.Errorf("agent context lacks %q:\n%s", s, human)
		}
	}
}
