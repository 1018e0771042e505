package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// big is usage that puts a 32K-window model over its overflow point
// (window 32768 − reserve 4096).
var big = pt.Usage{Prompt: 29000, Completion: 500}

func textWithUsage(s string, u pt.Usage) pt.Step {
	return pt.Reply(pt.TextChunk(s), pt.FinishChunk("stop"), pt.UsageChunk(u))
}

const summaryText = "## Goal\nShip it.\n\n## Standing user instructions and constraints\nUse tabs.\n\n## Done so far\nNone.\n\n## Files touched\nNone.\n\n## Current state\nNone.\n\n## Next steps\nNone."

// unknownModel runs model "m", whose window is unknown (the default), and
// trusts the scripted usage, which stands for a context larger than the
// text the tests send (Options.TrustUsage).
func unknownModel(o *Options, c *config.Config) {
	c.Model = "m"
	o.TrustUsage = true
}

func isSummaryRequest(msgs []openai.ChatCompletionMessage) bool {
	return len(msgs) > 0 && strings.Contains(msgs[len(msgs)-1].Content, "## Standing user instructions and constraints")
}

func TestOverflowCompactsBeforeTheNextStep(t *testing.T) {
	h := newHarnessWith(t, unknownModel,
		textWithUsage("one", pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage("two", pt.Usage{Prompt: 2000, Completion: 10}),
		textWithUsage("three", big),
		pt.Text(summaryText),
		pt.Text("four"),
	)
	for _, q := range []string{"always use tabs", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	before := h.r.Reading()
	if before.Total != 29500 {
		t.Fatalf("total before = %d", before.Total)
	}
	if res := h.turn("fourth"); res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn = %+v", res)
	}
	if !isSummaryRequest(h.request(3)) {
		t.Fatalf("request 3 is not a summary request: %+v", h.request(3))
	}
	main := h.request(4)
	if !strings.HasPrefix(main[2].Content, SummaryPreamble) || !strings.Contains(main[2].Content, "always use tabs") {
		t.Errorf("main request after compaction starts with %q", main[2].Content)
	}
	for _, m := range main {
		if m.Content == "one" {
			t.Error("a summarised message was sent again")
		}
	}
	// The compaction came before the turn's first step: the user's fresh
	// message is the last one, with no synthetic continue after it (issue
	// 12.8).
	if last := main[len(main)-1]; last.Content != "fourth" {
		t.Errorf("last message = %q, want the user's fresh message", last.Content)
	}
	for _, m := range main {
		if m.Content == compact.ContinuePrompt {
			t.Error("synthetic continue after a compaction before the turn's first step")
		}
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 1 || !ev[0].Compaction.Auto || ev[0].Compaction.TokensBefore < 29500 || ev[0].Compaction.TokensAfter >= 29500 {
		t.Errorf("compacted events = %+v", *ev[0].Compaction)
	}
	after := h.r.Reading()
	if after.Total >= before.Total {
		t.Errorf("total after %d, before %d", after.Total, before.Total)
	}
	// The stored history agrees with what was sent.
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	sent := ToModelMessages(hist[:len(hist)-1], ConvertOptions{})
	if len(sent) != len(main)-2 {
		t.Errorf("reloaded history converts to %d messages, the request had %d", len(sent), len(main)-2)
	}
}

// long is a reply of about n hundred tokens.
func long(word string, n int) string { return strings.Repeat(word+" and more words. ", 25*n) }

func TestContextErrorCompactsAndRetries(t *testing.T) {
	overflow := pt.HTTPError(400, nil, `{"error":{"message":"This model's maximum context length is 32768 tokens","code":"context_length_exceeded"}}`)
	h := newHarnessWith(t, unknownModel,
		textWithUsage(long("one", 10), pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage(long("two", 10), pt.Usage{Prompt: 2000, Completion: 10}),
		textWithUsage(long("three", 10), pt.Usage{Prompt: 3000, Completion: 10}),
		overflow,
		pt.Text(summaryText),
		pt.Text("four"),
	)
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	if res := h.turn("fourth"); res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	if !isSummaryRequest(h.request(4)) || !strings.HasPrefix(h.request(5)[2].Content, SummaryPreamble) {
		t.Error("no compaction between the overflow and the retry")
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 1 || ev[0].Compaction.Reason != "context_error" {
		t.Errorf("compacted events = %+v", ev)
	}

	// A second overflow in a later turn compacts again: the request that
	// went through reset the breaker.
	h.srv.Add(textWithUsage(long("five", 10), pt.Usage{Prompt: 3000, Completion: 10}), overflow, pt.Text(summaryText), pt.Text("six"))
	h.turn("fifth")
	if res := h.turn("sixth"); res.Err != nil {
		t.Errorf("second overflow: %+v", res)
	}
	if ev := h.eventsOf(message.EventCompacted); len(ev) != 2 {
		t.Errorf("%d compactions, want 2", len(ev))
	}
}

// TestCompactionThatDoesNotShrinkIsRejected: a summary longer than what it
// replaces is rejected, twice, and the model-free fallback compacts instead;
// the turn goes on (issue 12, bad input).
func TestCompactionThatDoesNotShrinkIsRejected(t *testing.T) {
	huge := strings.Repeat("word ", 40000) // ≈ 50K tokens: larger than what it replaces
	h := newHarnessWith(t, unknownModel,
		textWithUsage(long("one", 10), pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage(long("two", 10), pt.Usage{Prompt: 2000, Completion: 10}),
		textWithUsage("three", big),
		pt.Text(huge),
		pt.Text(huge),
		pt.Text("four"),
		pt.Text("five"),
	)
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	if res := h.turn("fourth"); res.Err != nil {
		t.Fatalf("a rejected compaction must not fail the turn: %v", res.Err)
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 3 || !ev[0].Compaction.Rejected || !ev[1].Compaction.Rejected ||
		ev[2].Compaction.Rejected || ev[2].Compaction.Outcome != message.CompactionFallback {
		for _, e := range ev {
			t.Logf("%+v", *e.Compaction)
		}
		t.Fatalf("%d compacted events, want two rejected summaries and a fallback", len(ev))
	}
	main := h.request(5)
	if strings.Contains(main[2].Content, "word word") || !strings.Contains(main[2].Content, "compacted without a summary") {
		t.Errorf("request after the fallback starts with %.200q", main[2].Content)
	}
	if res := h.turn("fifth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()); n != 7 {
		t.Errorf("%d requests, want 7 (no further summary request)", n)
	}
	log, _ := h.store.ListEventLog(context.Background(), h.r.Session().ID)
	kinds := map[string]int{}
	for _, l := range log {
		kinds[l.Kind]++
	}
	if kinds["compaction_rejected"] != 2 || kinds["compaction_fallback"] != 1 {
		t.Errorf("event log kinds = %v", kinds)
	}
}

func TestManualCompactWithFocus(t *testing.T) {
	h := newHarness(t, pt.Text(long("one", 5)), pt.Text(long("two", 5)), pt.Text("three"), pt.Text(summaryText), pt.Text("four"))
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	focus := strings.Repeat("keep the failing test names ", 2000) // 56 KB
	if err := h.r.Compact(context.Background(), focus); err != nil {
		t.Fatal(err)
	}
	req := h.request(3)
	last := req[len(req)-1].Content
	if !strings.Contains(last, "keep the failing test names") || len(last) > 20000 {
		t.Errorf("focus not included or not trimmed: %d bytes", len(last))
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 1 || ev[0].Compaction.Auto || ev[0].Compaction.Reason != "manual" {
		t.Errorf("events = %+v", ev)
	}
	// A manual compaction while idle adds no synthetic continue.
	if res := h.turn("fourth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, m := range h.request(4) {
		if m.Content == compact.ContinuePrompt {
			t.Error("synthetic continue after a manual compaction")
		}
	}
}

func TestCompactNothingYet(t *testing.T) {
	h := newHarness(t, pt.Text("one"))
	h.turn("first")
	if err := h.r.Compact(context.Background(), ""); err == nil {
		t.Error("compacting a one-turn session should say there is nothing to compact")
	}
}

func TestPruneAfterTurn(t *testing.T) {
	// Two tool outputs of ~12K tokens (capped at 50 KB each): with 15K
	// protected, the older one is pruned once two newer turns exist.
	bigOut := `{"command":"head -c 120000 /dev/zero | tr '\\0' x"}`
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Tools.BashMaxOutputChars = 200000
		c.Compaction.PruneProtect, c.Compaction.PruneMinimum = 15000, 5000
	},
		pt.ToolCall("c1", "bash", bigOut), pt.Text("one"),
		pt.ToolCall("c2", "bash", bigOut), pt.Text("two"),
		pt.Text("three"), pt.Text("four"),
	)
	for _, q := range []string{"first", "second", "third", "fourth"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	ev := h.eventsOf(message.EventPruned)
	if len(ev) == 0 || ev[0].Prune.Parts < 1 || ev[0].Prune.TokensSaved < 5000 {
		t.Fatalf("pruned events = %+v", ev)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if tool := findTool(hist, "c1"); tool == nil || tool.CompactedAt.IsZero() || tool.Output == "" {
		t.Errorf("c1 should be marked compacted and still stored: %+v", tool)
	}
	// The prune's saving is counted the same way live and restored.
	live := h.r.Reading()
	read, _, err := StoredReading(context.Background(), h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil || read.Total != live.Total {
		t.Errorf("after a prune: read %d, live %d (%v)", read.Total, live.Total, err)
	}
	h.srv.Add(pt.Text("five"))
	h.turn("fifth")
	for _, m := range h.request(6) {
		if m.ToolCallID == "c1" && m.Content != message.ClearedOutput {
			t.Errorf("pruned output sent as %q", m.Content[:min(40, len(m.Content))])
		}
	}
}

// TestReadingAfterCompactionMatchesStoredReading: in the estimated basis
// after a compaction, the running session and `agent context` agree.
func TestReadingAfterCompactionMatchesStoredReading(t *testing.T) {
	out := `{"command":"seq 1 600"}`
	h := newHarness(t, pt.ToolCall("c1", "bash", out), pt.Text("one"), pt.ToolCall("c2", "bash", out), pt.Text("two"),
		pt.Text("three"), pt.Text(summaryText))
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	if err := h.r.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	live := h.r.Reading()
	read, _, err := StoredReading(context.Background(), h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if live.Basis != "estimated" || read.Total != live.Total || read.Calibration != live.Calibration {
		t.Errorf("after compaction: read %d (%s, cal %.3f), live %d (%s, cal %.3f)",
			read.Total, read.Basis, read.Calibration, live.Total, live.Basis, live.Calibration)
	}
}
