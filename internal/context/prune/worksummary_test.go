package prune

import (
	"slices"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestPassNeverClearsWorkSummaries: a subagent's report (a task result,
// with or without the mark older binaries did not write) and any result
// marked as a summary of work are never selected, however old or large;
// the plain outputs around them are, and the reports still count as kept
// context.
func TestPassNeverClearsWorkSummaries(t *testing.T) {
	h := new(history).
		user("1").tool("old_read", 30000).tool("task_unmarked", 30000).tool("marked", 30000).
		user("2").tool("t2", 100).
		user("3")
	for i := range h.entries {
		for j := range h.entries[i].Parts {
			p := &h.entries[i].Parts[j]
			switch p.ID {
			case "task_unmarked":
				p.Tool.Name = "task"
			case "marked":
				p.Tool.Name = "review__report"
				p.Tool.Metadata = map[string]any{message.WorkSummaryKey: true}
			}
		}
	}
	res := Pass(h.entries, nil, Options{Protect: 1000, Minimum: 1000})
	if !slices.Equal(res.PartIDs, []string{"old_read"}) {
		t.Errorf("selected %v; want only old_read: subagent reports and marked work summaries are never pruned", res.PartIDs)
	}
	if res.TokensSaved != 30000-cleared {
		t.Errorf("saved %d, want %d", res.TokensSaved, 30000-cleared)
	}
}
