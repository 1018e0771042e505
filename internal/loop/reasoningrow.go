package loop

// The reasoning row of /context and `agent context` (tokens.ReasoningSent):
// the loop sets it after each step and after a compaction, the points
// where the reasoning sent back changes; Restore sets it on open. It costs
// a walk of the history, and only for models that take reasoning back.

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// setReasoningRow sets calc's reasoning row for history.
func setReasoningRow(calc *tokens.Calculator, history []message.Entry, roundtrip bool) {
	if !roundtrip {
		return
	}
	calc.SetReasoning(tokens.ReasoningSent(history, calc.Estimator(), roundtrip))
}
