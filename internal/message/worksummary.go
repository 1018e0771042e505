package message

// Work summaries: a tool result that reports work done out of the model's
// sight — a subagent's final answer — is the only record the conversation
// has of that work. Context management never clears one: pruning skips it,
// the model-free fallback keeps it, and one an older binary marked
// compacted is still sent whole (tokens.ToolResult). It leaves the
// context only with its turn, into a summary.

// WorkSummaryKey is the ToolState.Metadata key (value true) a tool sets on
// a result that is a summary of work.
const WorkSummaryKey = "work_summary"

// taskToolName is the task tool's name (task.Name): its results are work
// summaries even when stored without the mark, as older binaries did.
const taskToolName = "task"

// WorkSummary reports whether a tool result is a summary of work: a task
// result, or one its tool marked with WorkSummaryKey.
func (t *ToolState) WorkSummary() bool {
	if t == nil {
		return false
	}
	if t.Name == taskToolName {
		return true
	}
	marked, _ := t.Metadata[WorkSummaryKey].(bool)
	return marked
}
