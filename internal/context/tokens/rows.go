package tokens

// The rows of a snapshot's breakdown, and how each was obtained. System
// prompt, tool schemas, pins and the todo list are always estimated; messages are
// back-calculated (total − the others) when the total is anchored on a
// call's reported usage, estimated otherwise; reasoning, a part of the
// messages, is the estimate of the reasoning text sent back to a model that
// takes it (reasoning_roundtrip) and exactly zero for the others. `agent
// context --json` carries the labels as "labels".

import "github.com/ctxloop/agent/internal/message"

// How a row of the breakdown was obtained.
const (
	LabelActual         = "actual"
	LabelEstimated      = "estimated"
	LabelBackCalculated = "back-calculated"
)

// Labels says, for each row of a Breakdown, how it was obtained: one of
// LabelActual, LabelEstimated, LabelBackCalculated.
type Labels struct {
	Total     string `json:"total"`
	System    string `json:"system"`
	Tools     string `json:"tools"`
	Messages  string `json:"messages"`
	Pins      string `json:"pins"`
	Todo      string `json:"todo"`
	Reasoning string `json:"reasoning"`
}

// labelsOf labels the rows of a snapshot of the given basis.
func labelsOf(basis Basis, roundtrip bool) Labels {
	l := Labels{Total: LabelEstimated, System: LabelEstimated, Tools: LabelEstimated,
		Messages: LabelEstimated, Pins: LabelEstimated, Todo: LabelEstimated, Reasoning: LabelActual}
	if basis == BasisActual {
		l.Total, l.Messages = LabelActual, LabelBackCalculated
	}
	if roundtrip {
		l.Reasoning = LabelEstimated
	}
	return l
}

// ReasoningSent estimates the reasoning text the next request sends back:
// that of the visible history when roundtrip (the model takes its
// reasoning back), 0 otherwise.
func ReasoningSent(history []message.Entry, est Estimator, roundtrip bool) int64 {
	if !roundtrip {
		return 0
	}
	v := VisibleHistory(history)
	var n int64
	visit := func(e *message.Entry) {
		if e.Message.Role != message.RoleAssistant || e.Message.Summary {
			return
		}
		for i := range e.Parts {
			if p := &e.Parts[i]; p.Type == message.PartReasoning && p.Text != "" {
				n += int64(est.Count(p.Text))
			}
		}
	}
	for _, part := range [][]message.Entry{v.Head, v.Kept, v.After} {
		for i := range part {
			visit(&part[i])
		}
	}
	return n
}

// SetReasoning sets the reasoning row (ReasoningSent of the history). It
// is part of the messages and does not change the total.
func (c *Calculator) SetReasoning(tokens int64) {
	c.mu.Lock()
	c.reasoning = tokens
	c.mu.Unlock()
}
