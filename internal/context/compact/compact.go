// Package compact holds the pure decisions of summarising compaction (tier
// 3 of context management): when to compact (Strategy), what to summarise
// and what to keep (MakePlan), how to ask for the summary (SummaryPrompt),
// what to store (ComposeSummary), whether to accept it (Validate), and how
// to shrink a summary request that itself overflows (DropOldest, DropToFit).
//
// It does no I/O and calls no model: the loop executes a compaction with
// these pieces — prune, plan, request the summary (from small_model if set),
// validate, store the summary message and the compaction part, reset the
// calculator, and after an automatic compaction in the middle of a task add
// a synthetic user message with ContinuePrompt.
package compact

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// ContinuePrompt is the synthetic user message that resumes the work after
// an automatic compaction in the middle of a task.
const ContinuePrompt = "Continue the task from where you left off, using the summary above and the messages after it. Do not redo work that is already done; if the task is complete, say so briefly."

// DropOldest returns entries without their oldest n, keeping a leading
// summary message: the input of a summary request that itself overflows.
// Whole messages are dropped, so no tool call is parted from its result.
func DropOldest(entries []message.Entry, n int) []message.Entry {
	head := 0
	if len(entries) > 0 && entries[0].Message.Summary {
		head = 1
	}
	n = min(max(n, 0), len(entries)-head)
	out := make([]message.Entry, 0, len(entries)-n)
	out = append(out, entries[:head]...)
	return append(out, entries[head+n:]...)
}

// DropToFit drops the oldest entries (keeping a leading summary) until what
// is left costs at most budget tokens, and returns it with the number
// dropped. It may drop everything but the summary.
func DropToFit(entries []message.Entry, est tokens.Estimator, budget int64) ([]message.Entry, int) {
	head := 0
	if len(entries) > 0 && entries[0].Message.Summary {
		head = 1
	}
	total := tokens.EstimateEntries(entries, est)
	n := 0
	for total > budget && head+n < len(entries) {
		total -= tokens.EstimateEntries(entries[head+n:head+n+1], est)
		n++
	}
	if n == 0 {
		return entries, 0
	}
	return DropOldest(entries, n), n
}
