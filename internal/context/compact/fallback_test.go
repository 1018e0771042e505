package compact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// withIDs gives every tool part of h an id named after its call, so that
// Prune can be checked.
func withIDs(h *history) *history {
	for i := range h.entries {
		for j := range h.entries[i].Parts {
			if p := &h.entries[i].Parts[j]; p.Tool != nil {
				p.ID = "part_" + p.Tool.CallID
			}
		}
	}
	return h
}

func TestPlanFallback(t *testing.T) {
	opt := Options{TailTurns: 1, TailBudget: 5000, UserBudget: 2000}
	h := withIDs(new(history).
		userText("u1", "always use tabs").assistant("a1", 3000).
		userText("u2", "now fix the parser").assistant("a2", 3000).
		userText("u3", "and the lexer").assistant("a3", 3000).
		userText("u4", "run the tests").assistant("a4", 100))
	est := tokens.Chars{}

	t.Run("prunes outside the tail and keeps what fits", func(t *testing.T) {
		f, ok := PlanFallback(h.entries, est, opt, 1<<20)
		if !ok {
			t.Fatal("nothing planned")
		}
		if got := strings.Join(f.Prune, " "); got != "part_call_a1 part_call_a2 part_call_a3" {
			t.Errorf("prune = %q, want every output outside the tail", got)
		}
		if f.DroppedTurns != 1 || entryName[f.KeepFrom] != "u2" {
			t.Errorf("dropped %d turns, keeps from %q: with room to spare only the oldest turn goes", f.DroppedTurns, entryName[f.KeepFrom])
		}
	})
	t.Run("drops the oldest turns whole to fit", func(t *testing.T) {
		all, _ := PlanFallback(h.entries, est, opt, 1<<20)
		budget := all.TokensAfter - 1
		f, _ := PlanFallback(h.entries, est, opt, budget)
		if f.DroppedTurns == 0 || f.DroppedTurns > 3 || f.TokensAfter > budget {
			t.Fatalf("dropped %d turns, %d tokens after, want ≤ %d", f.DroppedTurns, f.TokensAfter, budget)
		}
		if name := entryName[f.KeepFrom]; name != "" && !strings.HasPrefix(name, "u") {
			t.Errorf("kept messages start at %q, not at a turn", name)
		}
		if !strings.Contains(f.Body, fmt.Sprintf(FallbackNote, f.DroppedTurns)) || !strings.Contains(f.Body, "always use tabs") {
			t.Errorf("body lacks the note or the user's rule:\n%s", f.Body)
		}
		if strings.Contains(f.Body, "run the tests") {
			t.Error("a message still sent verbatim is copied into the summary")
		}
	})
	t.Run("drops everything outside the tail at worst", func(t *testing.T) {
		f, _ := PlanFallback(h.entries, est, opt, 1)
		if f.DroppedTurns != 3 || entryName[f.KeepFrom] != "u4" {
			t.Errorf("dropped %d turns, keeps from %q; want 3 and the tail u4", f.DroppedTurns, entryName[f.KeepFrom])
		}
	})
	t.Run("after a summary: its kept tail is dropped, its rules carried", func(t *testing.T) {
		h := withIDs(new(history).userText("u0", "never push").assistant("a0", 10).
			userText("u1", "step one").assistant("a1", 10).summary(ComposeSummary("## Goal\nship", []string{"never push"}), "u1").
			userText("u2", "step two").assistant("a2", 2000).userText("u3", "step three").assistant("a3", 10))
		f, _ := PlanFallback(h.entries, est, opt, 300)
		if f.DroppedTurns < 1 || !strings.Contains(f.Body, "never push") || !strings.Contains(f.Body, "step one") || !strings.Contains(f.Body, "## Goal\nship") {
			t.Errorf("dropped %d; body:\n%s", f.DroppedTurns, f.Body)
		}
		kept := tokens.VisibleHistory(append(h.entries,
			message.Entry{Message: message.Message{ID: "m999998", Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{TailFrom: f.KeepFrom, SummaryID: "m999999"}}}},
			message.Entry{Message: message.Message{ID: "m999999", Role: message.RoleAssistant, Summary: true}, Parts: []message.Part{{Type: message.PartText, Text: f.Body}}},
		))
		for _, e := range kept.Kept {
			if e.Message.Summary || entryName[e.Message.ID] == "u1" {
				t.Errorf("%q is sent after the new summary", entryName[e.Message.ID])
			}
		}
	})
	t.Run("one giant message: dropped from what is sent, kept cut in the summary", func(t *testing.T) {
		f, ok := PlanFallback(new(history).userText("u", "please "+strings.Repeat("abcd ", 20000)).entries, est, opt, 1000)
		if !ok || f.DroppedTurns != 1 || f.TokensAfter > 1000 || !strings.Contains(f.Body, "please abcd") || !strings.Contains(f.Body, "characters omitted") {
			t.Errorf("ok %v, dropped %d, %d tokens after; body %.200q", ok, f.DroppedTurns, f.TokensAfter, f.Body)
		}
	})
	t.Run("nothing to compact", func(t *testing.T) {
		if _, ok := PlanFallback(nil, est, opt, 1); ok {
			t.Error("planned a fallback of nothing")
		}
	})
}

func TestBreaker(t *testing.T) {
	tests := []struct {
		b    Breaker
		want AttemptKind
	}{
		{Breaker{}, AttemptSummary},
		{Breaker{Made: 1}, AttemptSummary},
		{Breaker{Made: 1, SummaryFailures: 1}, AttemptSummary},
		{Breaker{Made: 2, SummaryFailures: 2}, AttemptFallback},
		{Breaker{Made: 2}, AttemptFallback}, // two summaries that did not get below the point
		{Breaker{Made: 3}, AttemptNone},
	}
	for _, tt := range tests {
		if got := tt.b.Next(); got != tt.want {
			t.Errorf("%+v.Next() = %v, want %v", tt.b, got, tt.want)
		}
	}
}

func TestCeiling(t *testing.T) {
	tests := []struct {
		refused, limit, prompt, want int64
	}{
		{50000, 32000, 40000, 40000}, // our count was over: scale by limit/prompt
		{20000, 12000, 40000, 6000},  // we counted far under
		{20000, 0, 0, 18000},         // the refusal alone
		{20000, 32000, 30000, 18000}, // prompt under the limit (output counted): the refusal alone
		{12000, 12000, 0, 10800},     // a stated limit below the window
		{3000, 0, 0, 0},              // a tiny request refused: nothing credible
		{3000, 32768, 0, 0},
		{0, 32000, 40000, 0},
	}
	for _, tt := range tests {
		if got := Ceiling(tt.refused, tt.limit, tt.prompt, 32000); got != tt.want {
			t.Errorf("Ceiling(%d, %d, %d) = %d, want %d", tt.refused, tt.limit, tt.prompt, got, tt.want)
		}
	}
	if got := LowerPoint(28000, 16000, 32000, 4000); got != 14000 {
		t.Errorf("LowerPoint = %d, want 14000", got)
	}
	if got := LowerPoint(28000, 0, 32000, 4000); got != 28000 {
		t.Errorf("LowerPoint without a ceiling = %d", got)
	}
	if got := LowerPoint(0, 16000, 32000, 4000); got != 0 {
		t.Errorf("LowerPoint of a manual strategy = %d, want 0", got)
	}
}

func TestSummaryRequestChunks(t *testing.T) {
	est := tokens.Chars{}
	s := SizeRequest(12000, 4096, 0)
	if s.MaxTokens != 3000 || s.Input != 6750 {
		t.Errorf("SizeRequest(12000, 4096) = %+v", s)
	}
	if s := SizeRequest(200000, 0, 0); s.MaxTokens != DefaultSummaryMaxTokens {
		t.Errorf("the output cap of a large window is %d", s.MaxTokens)
	}
	h := new(history).userText("u1", "read the logs").assistant("a1", 9000).userText("u2", "and then?").assistant("a2", 200)
	blocks := Transcript(h.entries, est, 2000)
	if len(blocks) != 4 || !strings.HasPrefix(blocks[0], "User: read the logs") ||
		!strings.Contains(blocks[1], "Assistant called tool read {}") || !strings.Contains(blocks[1], "Tool result (read):") {
		t.Fatalf("transcript = %q", blocks)
	}
	if n := est.Count(blocks[1]); n > 2100 {
		t.Errorf("a 9000-token result was sent at %d tokens, over its cap", n)
	}
	budget := s.ChunkBudget(0, int64(est.Count(SummaryPrompt(""))))
	chunks := Chunks(append(blocks, strings.Repeat("x", 80000)), est, budget)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		if n := int64(est.Count(c)); n > budget {
			t.Errorf("chunk %d: %d tokens > budget %d", i, n, budget)
		}
	}
	if !strings.HasPrefix(chunks[0], "User: read the logs") {
		t.Errorf("the oldest message is not first: %.40q", chunks[0])
	}
	req := RequestText("## Goal\nold", chunks[1], "", 2, len(chunks))
	if !strings.Contains(req, "<earlier_summary>\n## Goal\nold") || !strings.Contains(req, "part 2 of") ||
		!strings.HasSuffix(req, SummaryPrompt("")) {
		t.Errorf("request text = %.300q", req)
	}
}

func TestCheckSummary(t *testing.T) {
	if err := CheckSummary(" \n", 1, 100); err != ErrEmptySummary {
		t.Errorf("blank: %v", err)
	}
	if err := CheckSummary("long", 100, 100); err == nil || !strings.Contains(err.Error(), "longer than what it replaces") {
		t.Errorf("as long as what it replaces: %v", err)
	}
	if err := CheckSummary("## Goal\nx", 10, 100); err != nil {
		t.Errorf("a good summary: %v", err)
	}
}

func TestBreakerThrough(t *testing.T) {
	b := Breaker{Made: 3, SummaryFailures: 2}.Through()
	if b.Made != 0 || b.SummaryFailures != 2 || b.Next() != AttemptFallback {
		t.Errorf("after a request went through: %+v, next %v; want the attempts back and no more summaries this turn", b, b.Next())
	}
}
