package tui

// The task tool's card (internal/task runs a subagent): titled with the
// task's description from the moment it is called, the subagent's progress
// (its latest calls, its step and tokens) while it runs, and once it has
// answered one line — steps, tokens, cost, the child session — until it is
// expanded to show the answer. A failed task shows its error like any tool.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

// taskToolName is the task tool's name (internal/task.Name; the chat does
// not import the tool).
const taskToolName = "task"

// taskTitle is the card title of a task call whose result has not titled
// it: "task: <description>" from its input, or "" when it has none yet.
func taskTitle(st *message.ToolState) string {
	var in struct {
		Description string `json:"description"`
	}
	if json.Unmarshal([]byte(st.Input), &in) != nil {
		return ""
	}
	if d := strings.Join(strings.Fields(in.Description), " "); d != "" {
		return taskToolName + ": " + d
	}
	return ""
}

// taskCollapsed reports whether the card shows the one-line summary: a
// completed task, not expanded.
func taskCollapsed(st *message.ToolState, expanded bool) bool {
	return st.Name == taskToolName && st.Status == message.ToolCompleted && !expanded
}

// taskSummary is the one line of a finished task card, from the result's
// metadata (numbers are float64 once reloaded from the database).
func taskSummary(st *message.ToolState) string {
	md := st.Metadata
	var parts []string
	if n, ok := metaNumber(md["steps"]); ok {
		unit := "steps"
		if n == 1 {
			unit = "step"
		}
		parts = append(parts, fmt.Sprintf("%d %s", int64(n), unit))
	}
	if n, ok := metaNumber(md["tokens"]); ok {
		parts = append(parts, formatTokens(int64(n))+" tokens")
	}
	if c, ok := metaNumber(md["cost_usd"]); ok && c > 0 {
		parts = append(parts, formatCost(c))
	}
	if id, ok := md["session_id"].(string); ok && id != "" {
		parts = append(parts, "session "+id)
	}
	if len(parts) == 0 {
		return "done"
	}
	return strings.Join(parts, " · ")
}

func metaNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
