package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestDuplicateToolCallIDsAreRenumbered: two calls of one step that carry
// the same id are both run, stored and sent back under distinct ids, each
// with its own result (issue 11.14).
func TestDuplicateToolCallIDsAreRenumbered(t *testing.T) {
	h := newHarness(t,
		pt.ToolCalls(
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo first"}`},
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo second"}`},
			pt.Call{ID: "call_same", Name: "bash", Args: `{"command":"echo third"}`},
		),
		pt.Text("Done."),
	)
	if res := h.turn("run them"); res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	seen := map[string]bool{}
	var ids []string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				t.Errorf("tool call id %q sent twice", tc.ID)
			}
			seen[tc.ID] = true
			ids = append(ids, tc.ID)
		}
	}
	if len(ids) != 3 || ids[0] != "call_same" {
		t.Fatalf("ids = %q, want three with the first unchanged", ids)
	}
	var outs []string
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			outs = append(outs, strings.TrimSpace(m.Content))
		}
	}
	if len(outs) != 3 || !strings.Contains(outs[0], "first") || !strings.Contains(outs[1], "second") || !strings.Contains(outs[2], "third") {
		t.Errorf("results = %q", outs)
	}
}

// TestOneLargeStepFitsTheWindow: in a 32K window, one step that reads six
// large files must not make the next request, or a summary request, larger
// than the window: the step's results are cut to the room left, older
// results first, with a notice naming where the whole output is (issue
// 11.9).
func TestOneLargeStepFitsTheWindow(t *testing.T) {
	const window = 32768
	sim := newSimServer(window, 7)
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "sim-32k"
		c.Models["sim-32k"] = config.ModelInfo{ContextWindow: window, MaxOutput: 4096}
	})
	var calls []pt.Call
	for i := range 6 {
		name := fmt.Sprintf("big%d.txt", i)
		var b strings.Builder
		for n := 0; b.Len() < 60_000; n++ {
			fmt.Fprintf(&b, "file %d line %d: the quick brown fox jumps over the lazy dog %d\n", i, n, n*7919%1000)
		}
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, pt.Call{ID: fmt.Sprintf("call_%d", i), Name: "read", Args: fmt.Sprintf(`{"path":%q}`, name)})
	}
	first := true
	h.srv.Handle(func(req pt.Request) pt.Step {
		sim.mu.Lock()
		defer sim.mu.Unlock()
		prompt := sim.count(req.Chat)
		if prompt > sim.window {
			sim.over = append(sim.over, prompt)
			return pt.HTTPError(400, nil, fmt.Sprintf(`{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, sim.window, prompt))
		}
		if isSummaryRequest(req.Chat.Messages) {
			return sim.reply(prompt, "## Goal\nRead the six files.\n\n## Done so far\nRead them.\n\n## Next steps\nAnswer.")
		}
		if first {
			first = false
			return pt.Reply(append(pt.ToolCalls(calls...).Chunks, pt.UsageChunk(pt.Usage{Prompt: prompt, Completion: 60}))...)
		}
		return sim.reply(prompt, "The six files hold numbered lines about a fox.")
	})

	res := h.turn("read the six big files and tell me what they hold")
	if res.Err != nil {
		t.Fatalf("turn failed: %v", res.Err)
	}
	sim.mu.Lock()
	over := append([]int(nil), sim.over...)
	sim.mu.Unlock()
	if len(over) > 0 {
		t.Errorf("%d requests exceeded the %d-token window: %v", len(over), window, over)
	}
	// The newest result is kept whole or nearly; the oldest carry the
	// notice and a path that holds the whole output.
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	var outs []*message.ToolState
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool != nil {
				outs = append(outs, p.Tool)
			}
		}
	}
	if len(outs) != 6 {
		t.Fatalf("%d tool parts, want 6", len(outs))
	}
	if !strings.Contains(outs[0].Output, "to fit the context") || outs[0].FullOutputPath == "" {
		t.Errorf("oldest result not cut with a notice: truncated=%v path=%q tail=%q", outs[0].Truncated, outs[0].FullOutputPath, lastN(outs[0].Output, 300))
	} else if full, err := os.ReadFile(outs[0].FullOutputPath); err != nil || len(full) < 40_000 || !strings.Contains(string(full), "file 0 line 600:") {
		t.Errorf("saved output %s (%d bytes, err %v) lacks what read returned", outs[0].FullOutputPath, len(full), err)
	}
	if len(outs[5].Output) < len(outs[0].Output) {
		t.Errorf("newest result (%d bytes) was cut more than the oldest (%d bytes)", len(outs[5].Output), len(outs[0].Output))
	}
}

func lastN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestSummaryOfOneOversizedStep: a step that filled a large window is
// summarised after a switch to a 32K model. The summary request is sized to
// the 32K window from the start: the step goes as a transcript, its results
// shortened and cut into chunks, never dropped; no summary request
// overflows and the session continues (issues 11.9, 12.1).
func TestSummaryOfOneOversizedStep(t *testing.T) {
	const window = 32768
	sim := newSimServer(window, 9)
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "sim-200k"
		c.Models["sim-200k"] = config.ModelInfo{ContextWindow: 200_000, MaxOutput: 4096}
		c.Models["sim-32k"] = config.ModelInfo{ContextWindow: window, MaxOutput: 4096}
	})
	var calls []pt.Call
	for i := range 4 {
		name := fmt.Sprintf("log%d.txt", i)
		var b strings.Builder
		for n := 0; b.Len() < 45_000; n++ {
			fmt.Fprintf(&b, "log %d entry %d: request served in %d ms\n", i, n, n*7919%1000)
		}
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, pt.Call{ID: fmt.Sprintf("call_%d", i), Name: "read", Args: fmt.Sprintf(`{"path":%q}`, name)})
	}
	step := 0
	var summaryTries, summarisedResults int
	h.srv.Handle(func(req pt.Request) pt.Step {
		sim.mu.Lock()
		defer sim.mu.Unlock()
		prompt := sim.count(req.Chat)
		limit := 200_000
		if req.Chat.Model == "sim-32k" {
			limit = window
		}
		if isSummaryRequest(req.Chat.Messages) {
			summaryTries++
		}
		if prompt > limit {
			sim.over = append(sim.over, prompt)
			return pt.HTTPError(400, nil, fmt.Sprintf(`{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, limit, prompt))
		}
		if isSummaryRequest(req.Chat.Messages) {
			for _, m := range req.Chat.Messages {
				if m.Role == openai.ChatMessageRoleTool || len(m.ToolCalls) > 0 {
					t.Error("a summary request carries tool-call messages")
				}
				if strings.Contains(m.Content, "log 3 entry 1:") {
					summarisedResults++
				}
			}
			if req.Chat.MaxTokens+req.Chat.MaxCompletionTokens == 0 {
				t.Error("a summary request without an output cap")
			}
			return sim.reply(prompt, "## Goal\nRead the logs.\n\n## Done so far\nRead four logs.\n\n## Next steps\nAnswer.")
		}
		step++
		if step == 1 {
			return pt.Reply(append(pt.ToolCalls(calls...).Chunks, pt.UsageChunk(pt.Usage{Prompt: prompt, Completion: 60}))...)
		}
		return sim.reply(prompt, "The logs show requests served in under a second.")
	})
	if res := h.turn("read the four logs"); res.Err != nil {
		t.Fatalf("first turn: %v", res.Err)
	}
	if total := h.r.Reading().Total; total < window {
		t.Fatalf("the step left %d tokens: the test needs more than the small window", total)
	}
	if err := h.r.SetModel(context.Background(), "sim-32k"); err != nil {
		t.Fatal(err)
	}
	res := h.turn("so what do they show?")
	if res.Err != nil {
		t.Fatalf("turn after switching to the small model failed: %v", res.Err)
	}
	if len(h.eventsOf(message.EventCompacted)) == 0 {
		t.Error("no compaction")
	}
	sim.mu.Lock()
	defer sim.mu.Unlock()
	if summaryTries < 1 || len(sim.over) > 0 {
		t.Errorf("%d summary requests, %d over the window (%v): each should fit", summaryTries, len(sim.over), sim.over)
	}
	if summarisedResults == 0 {
		t.Error("the summary that was written never saw the big step's results: it was dropped instead of shortened")
	}
}

// TestMessageQueuedDuringACompactionIsDelivered: a message sent while
// /compact runs is queued (the runner is busy); when the compaction ends
// no turn would pick it up, so it starts its own.
func TestMessageQueuedDuringACompactionIsDelivered(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t,
		pt.Text(strings.Repeat("A long first answer about the design. ", 40)),
		pt.Text(strings.Repeat("A long second answer about the tests. ", 40)),
		pt.Reply(pt.TextChunk("## Goal\nDesign.\n\n## Done so far\nTwo turns.\n\n## Next steps\nNone."), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("Answer to the message typed during the compaction."),
	)
	for _, q := range []string{"first", "second"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- h.r.Compact(context.Background(), "") }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.WaitRequests(ctx, 3); err != nil {
		t.Fatal(err)
	}
	queued, err := h.r.Send(context.Background(), "typed during the compaction")
	if err != nil || !queued {
		t.Fatalf("send during the compaction: queued %v, err %v", queued, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("compact: %v", err)
	}
	if err := h.srv.WaitRequests(ctx, 4); err != nil {
		t.Fatalf("the queued message never went out: %v", err)
	}
	if res := h.r.Wait(ctx); res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("the turn of the queued message: %+v", res)
	}
	msgs := h.request(3)
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "typed during the compaction") {
		t.Errorf("the request after the compaction ends with %q", last.Content)
	}
}

// TestBudgetMessageShowsSmallAmounts: a cap of a tenth of a cent does not
// read as "$0.00 of its $0.00 budget".
func TestBudgetMessageShowsSmallAmounts(t *testing.T) {
	msg := (&budgetError{RefusedError: budget.RefusedError{CapUSD: 0.001, ReservedUSD: 0.0003, RequestUSD: 0.0058},
		inputUSD: 0.0054, outputUSD: 0.0004}).Error()
	for _, want := range []string{"$0.00 of its $0.001 budget", "$0.0003 reserved by requests in flight",
		"it reserves $0.0058: about $0.0054 of input and up to $0.0004 of output"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if got := usd(12.345); got != "$12.35" {
		t.Errorf("usd(12.345) = %q", got)
	}
}
