package compact

import (
	"slices"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
)

// TestFallbackKeepsWorkSummaries: the model-free fallback clears the
// outputs it keeps outside the tail, but never a subagent's report: a
// report is only ever summarised (or dropped with its turn).
func TestFallbackKeepsWorkSummaries(t *testing.T) {
	opt := Options{TailTurns: 1, TailBudget: 5000, UserBudget: 2000}
	h := withIDs(new(history).
		userText("u1", "look around").assistant("a1", 3000).
		userText("u2", "delegate").assistant("a2", 3000).
		userText("u3", "more").assistant("a3", 3000).
		userText("u4", "run the tests").assistant("a4", 100))
	for i := range h.entries {
		for j := range h.entries[i].Parts {
			if p := &h.entries[i].Parts[j]; p.ID == "part_call_a2" {
				p.Tool.Name = "task"
			}
		}
	}
	f, ok := PlanFallback(h.entries, tokens.Chars{}, opt, 1<<20)
	if !ok {
		t.Fatal("nothing planned")
	}
	if slices.Contains(f.Prune, "part_call_a2") || !slices.Contains(f.Prune, "part_call_a3") {
		t.Errorf("prune = %v; want the read outputs cleared and the task report kept", f.Prune)
	}
}
