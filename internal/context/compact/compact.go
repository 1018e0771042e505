// Package compact holds the pure decisions of summarising compaction (tier
// 3 of context management): when to compact (Strategy, and LowerPoint once
// a provider refused a request: Ceiling), what to summarise and what to keep
// (MakePlan), how to ask for the summary within the writer's window
// (SizeRequest, Transcript, Chunks, RequestText, SummaryPrompt), what to
// store (ComposeSummary), whether to accept it (CheckSummary, Validate),
// what to do without a model when summaries fail (PlanFallback), and how
// many attempts a turn may make (Breaker).
//
// It does no I/O and calls no model: the loop executes a compaction with
// these pieces — prune, plan, request the summary chunk by chunk (from
// small_model if set, else the main model), validate, store the summary
// message and the compaction part, reset the calculator, and after an
// automatic compaction in the middle of a task (between steps, the last
// message not one the user just wrote) add a synthetic user message with
// ContinuePrompt. Every attempt, accepted or not, is logged.
package compact

// ContinuePrompt is the synthetic user message that resumes the work after
// an automatic compaction in the middle of a task.
const ContinuePrompt = "Continue the task from where you left off, using the summary above and the messages after it. Do not redo work that is already done; if the task is complete, say so briefly."
