package tokens

import (
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestToolResultSendsWorkSummariesEvenIfMarked: a subagent's report that
// an older binary marked compacted is still sent (and so priced) whole;
// any other marked output is the placeholder.
func TestToolResultSendsWorkSummariesEvenIfMarked(t *testing.T) {
	at := time.Unix(1, 0)
	for _, tc := range []struct {
		st   message.ToolState
		want string
	}{
		{message.ToolState{Name: "task", Status: message.ToolCompleted, Output: "the report", CompactedAt: at}, "the report"},
		{message.ToolState{Name: "x", Status: message.ToolCompleted, Output: "marked report", CompactedAt: at,
			Metadata: map[string]any{message.WorkSummaryKey: true}}, "marked report"},
		{message.ToolState{Name: "read", Status: message.ToolCompleted, Output: "file", CompactedAt: at}, message.ClearedOutput},
		{message.ToolState{Name: "task", Status: message.ToolRunning, CompactedAt: at}, message.InterruptedOutput},
	} {
		if got := ToolResult(&tc.st); got != tc.want {
			t.Errorf("ToolResult(%s, %v) = %q, want %q", tc.st.Name, tc.st.Metadata, got, tc.want)
		}
	}
}
