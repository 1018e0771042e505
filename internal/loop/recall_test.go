package loop

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/recall"
)

// count returns how many times s occurs in a request's messages.
func count(msgs []openai.ChatCompletionMessage, s string) int {
	n := 0
	for _, m := range msgs {
		n += strings.Count(m.Content, s)
	}
	return n
}

// TestRecallBringsBackAPrunedAndSummarisedOutput: an early tool output with
// a unique marker is pruned, then summarised away; the model finds it with
// recall, fetches it by its ref, and the next request carries it once,
// within the window.
func TestRecallBringsBackAPrunedAndSummarisedOutput(t *testing.T) {
	const marker = "MARKER_7f3qz"
	// The build prints 300 lines, the marker among them.
	build := `for i in $(seq 1 150); do echo "build step $i ok"; done; echo "linker said ` + marker + ` at 0x2a"; for i in $(seq 151 300); do echo "build step $i ok"; done`
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "m" // unknown: a 32K window
		c.Compaction.PruneProtect, c.Compaction.PruneMinimum = 50, 50
	},
		pt.ToolCall("call_build", "bash", mustJSON(map[string]any{"command": build})),
		// A summary must be worth it: the first turn's answer is long
		// enough that summarising it saves tokens.
		pt.Text("built: "+strings.Repeat("every step passed and the binary links. ", 40)),
		pt.Text("two"),
		pt.Text("three"),
		pt.Text(summaryText),
		pt.ToolCall("call_search", recall.Name, mustJSON(map[string]any{"query": marker})),
	)
	ref := regexp.MustCompile(`ref=([0-9A-Z]{26})`)
	var fetched string
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		last := msgs[len(msgs)-1]
		if last.Role == openai.ChatMessageRoleTool && last.ToolCallID == "call_search" {
			m := ref.FindStringSubmatch(last.Content)
			if m == nil {
				return pt.Text("no ref in: " + last.Content)
			}
			fetched = m[1]
			return pt.ToolCall("call_fetch", recall.Name, mustJSON(map[string]any{"ref": m[1]}))
		}
		return pt.Text("the linker said " + marker)
	})
	for _, q := range []string{"build it", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	ctx := context.Background()
	hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	var buildPart message.Part
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool != nil && p.Tool.CallID == "call_build" {
				buildPart = p
			}
		}
	}
	if buildPart.Tool == nil || buildPart.Tool.CompactedAt.IsZero() || !strings.Contains(buildPart.Tool.Output, marker) {
		t.Fatalf("the build output was not pruned: %+v", buildPart.Tool)
	}
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("what did the linker say?"); res.Err != nil {
		t.Fatal(res.Err)
	}
	// The summary request (request 4) listed the build call's ref.
	if sum := h.request(4); !isSummaryRequest(sum) || !strings.Contains(sum[len(sum)-1].Content, "ref="+buildPart.ID) {
		t.Errorf("the summary request does not name the build call's ref")
	}
	search := h.request(6)
	if res := search[len(search)-1]; !strings.Contains(res.Content, "ref="+buildPart.ID) || !strings.Contains(res.Content, "[summarised]") ||
		!strings.Contains(res.Content, marker) || !strings.Contains(res.Content, "call_id=call_build") {
		t.Fatalf("recall search result: %s", res.Content)
	}
	if fetched != buildPart.ID {
		t.Fatalf("fetched %q, want the build part %s", fetched, buildPart.ID)
	}
	final := h.request(7)
	got := final[len(final)-1]
	if got.ToolCallID != "call_fetch" || !strings.Contains(got.Content, "build step 300 ok") || !strings.Contains(got.Content, "linker said "+marker) {
		t.Fatalf("fetch result: %.300s", got.Content)
	}
	// The full text is in the request once: the summary and the cleared
	// output do not carry it.
	if n := count(final, "build step 299 ok"); n != 1 {
		t.Errorf("the full output is in the request %d times, want once", n)
	}
	if s := h.r.Reading(); s.Total > s.Window-s.OutputReserve {
		t.Errorf("request total %d over the usable window %d", s.Total, s.Window-s.OutputReserve)
	}
	if est := h.r.comp.requestEstimate(h.r.state.history); est > h.r.Reading().Window {
		t.Errorf("request estimate %d over the window", est)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestUndoCompactionAfterAModelSwitch: the history before a compaction does
// not fit the 32K model, so undo is refused, saying by how much; after a
// switch to a 200K model it is restored, and the next request carries the
// summarised turns again and not the summary. The running calculator and
// one rebuilt from the stored rows agree.
func TestUndoCompactionAfterAModelSwitch(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "m"
		c.Compaction.Auto = false
		c.Models["large"] = config.ModelInfo{ContextWindow: 200_000, MaxOutput: 8192}
	},
		textWithUsage(long("alpha", 80), pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage(long("beta", 80), pt.Usage{Prompt: 11000, Completion: 10}),
		textWithUsage(long("gamma", 80), pt.Usage{Prompt: 21000, Completion: 10}),
	)
	// The 30K tokens take the 32K model several summary requests.
	h.srv.Handle(func(req pt.Request) pt.Step {
		if isSummaryRequest(req.Chat.Messages) {
			return pt.Text(summaryText)
		}
		return pt.Text("after the undo")
	})
	ctx := context.Background()
	for _, q := range []string{"first question", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	compacted := h.r.Reading().Total
	if hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID); !hist[len(hist)-1].Message.Summary || hist[len(hist)-1].Message.Model == "" {
		t.Fatalf("no summary written by a model")
	}

	_, err := h.r.UndoCompaction(ctx)
	var tooLarge *UndoTooLargeError
	if !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "the history before the compaction is") ||
		!strings.Contains(err.Error(), "the current model's window is 32.8K") {
		t.Fatalf("undo on the 32K model: %v", err)
	}
	if h.r.Reading().Total != compacted {
		t.Errorf("a refused undo changed the total")
	}

	if err := h.r.SetModel(ctx, "large"); err != nil {
		t.Fatal(err)
	}
	u, err := h.r.UndoCompaction(ctx)
	if err != nil {
		t.Fatalf("undo on the 200K model: %v", err)
	}
	if u.Kind != "compaction" || u.TokensAfter <= u.TokensBefore {
		t.Errorf("undo = %+v", u)
	}
	// What the calculator says now is what a reopened session says.
	live := h.r.Reading()
	hist, err := h.store.LoadHistory(ctx, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	sys, tl := h.r.fixedTokens()
	reopened := tokens.Restore(h.r.mp.calcOptions(), h.r.mp.est, sys, tl, hist).Reading()
	if live.Total != reopened.Total || live.Basis != reopened.Basis {
		t.Errorf("after the undo: live %d (%s), reopened %d (%s)", live.Total, live.Basis, reopened.Total, reopened.Basis)
	}
	if _, err := h.r.UndoCompaction(ctx); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("a second undo: %v", err)
	}

	if res := h.turn("fourth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	next := h.request(len(h.srv.Requests()) - 1)
	if count(next, "alpha and more words") == 0 || count(next, "first question") != 1 {
		t.Errorf("the next request lacks the turns the summary had replaced")
	}
	for _, m := range next {
		if strings.HasPrefix(m.Content, SummaryPreamble) {
			t.Error("the undone summary is still sent")
		}
	}
	if got := ToModelMessages(hist, ConvertOptions{}); len(got) != len(next)-2-1 {
		t.Errorf("stored history converts to %d messages; the request had %d (2 system, 1 new)", len(got), len(next))
	}
}

// TestPlanUndoRestoresPrunedOutputsWithoutASummary: with no compaction in
// force, undo restores the cleared outputs of the history sent; a full
// restore clears every mark, summaries included.
func TestPlanUndoRestoresPrunedOutputsWithoutASummary(t *testing.T) {
	now := time.Now()
	tool := func(id string, pruned bool) message.Part {
		st := &message.ToolState{CallID: "c" + id, Name: "bash", Status: message.ToolCompleted, Output: "out " + id}
		if pruned {
			st.CompactedAt = now
		}
		return message.Part{ID: id, Type: message.PartTool, Tool: st}
	}
	h := []message.Entry{
		{Message: message.Message{ID: "01", Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartText, Text: "go"}}},
		{Message: message.Message{ID: "02", Role: message.RoleAssistant}, Parts: []message.Part{tool("P1", true), tool("P2", false), tool("P3", true)}},
	}
	plan := planUndo(h)
	if plan.entry >= 0 || len(plan.pruned) != 2 {
		t.Fatalf("plan %+v, want the two pruned parts", plan)
	}
	after := plan.apply(h, now)
	for _, p := range after[1].Parts {
		if !p.Tool.CompactedAt.IsZero() {
			t.Errorf("%s still pruned", p.ID)
		}
	}
	if h[1].Parts[0].Tool.CompactedAt.IsZero() {
		t.Error("apply changed the history it was given")
	}
	if got := ToModelMessages(after, ConvertOptions{}); got[2].Content != "out P1" {
		t.Errorf("restored output sent as %q", got[2].Content)
	}
	if planUndo(after).empty() != true {
		t.Error("nothing is left to undo after the restore")
	}
}
