package loop

// A run's visible budget (agent run --max-steps N, --timeout D): the model
// is told what is left once a quarter of either remains (one synthetic
// note, an EventGuard of kind "budget"), and the step at the limit — the
// Nth, or the first to start once the time is up — is offered no tools:
// the model answers with what it has (kind "final"). A tool it calls
// anyway is not run. The turn then ends with FinishMaxSteps or
// FinishTimeout. Time is checked between steps: a tool running when the
// time is up finishes (within its own timeout) before the final step.
//
// The decision (RunLimits.next) is pure over the steps taken and the
// time; the loop goroutine calls it before each step, and the stepper
// reads final (an atomic: requests are also built for previews from other
// goroutines).

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// FinishTimeout ends a turn whose run reached its --timeout (after the
// final, tool-less, step).
const FinishTimeout = "timeout"

// Marks of the budget's synthetic messages.
const (
	budgetMarker = "[budget]"
)

// RunLimits is a headless run's limits the model is told about. The zero
// value of a field means no such limit. Start is when the run began.
type RunLimits struct {
	Steps   int
	Timeout time.Duration
	Start   time.Time

	taken int  // steps begun (loop goroutine)
	told  bool // the quarter-left note was sent
	final atomic.Bool
	// ended is the finish reason once the final step began.
	ended string
}

// limitStep is what the loop does before a step.
type limitStep struct {
	note  string // a note for the model ("": none)
	kind  string // the note's guard kind: "budget" or "final"
	final bool   // this step is offered no tools and ends the turn
}

// next decides the coming step at now, and counts it.
func (b *RunLimits) next(now time.Time) limitStep {
	if b == nil || b.final.Load() {
		return limitStep{}
	}
	b.taken++
	stepsLeft := b.Steps - b.taken + 1 // this one included
	var timeLeft time.Duration
	if b.Timeout > 0 {
		timeLeft = b.Timeout - now.Sub(b.Start)
	}
	switch {
	case b.Steps > 0 && stepsLeft <= 1:
		b.final.Store(true)
		b.ended = FinishMaxSteps
		return limitStep{final: true, kind: "final", note: budgetMarker + fmt.Sprintf(
			" This is the last step of this run (--max-steps %d): no tools are available. Answer now with what you have: say what is done, what is not, and what to do next.", b.Steps)}
	case b.Timeout > 0 && timeLeft <= 0:
		b.final.Store(true)
		b.ended = FinishTimeout
		return limitStep{final: true, kind: "final", note: budgetMarker + fmt.Sprintf(
			" The run's time is up (--timeout %s): no tools are available. Answer now with what you have: say what is done, what is not, and what to do next.", b.Timeout)}
	}
	if b.told {
		return limitStep{}
	}
	var left []string
	if b.Steps > 0 && stepsLeft*4 <= b.Steps {
		left = append(left, fmt.Sprintf("%d of %d steps", stepsLeft, b.Steps))
	}
	if b.Timeout > 0 && timeLeft*4 <= b.Timeout {
		left = append(left, fmt.Sprintf("about %s of %s", timeLeft.Round(time.Second), b.Timeout))
	}
	if len(left) == 0 {
		return limitStep{}
	}
	b.told = true
	what := left[0]
	if len(left) == 2 {
		what += " and " + left[1]
	}
	return limitStep{kind: "budget", note: budgetMarker + " A quarter of this run's budget is left: " + what +
		". Wrap up: finish the most important part, verify it, and give your answer before the limit; the last step has no tools."}
}

// finalStep reports whether the step being made is the tool-less last one.
func (b *RunLimits) finalStep() bool { return b != nil && b.final.Load() }

// beforeLimitedStep applies l before a step: it counts the step, and tells
// the model (a synthetic message, addSynthetic) and the observer (emit) a
// note when there is one.
func beforeLimitedStep(ctx context.Context, l *RunLimits, session string, emit func(message.Event), addSynthetic func(context.Context, string) error) error {
	s := l.next(time.Now())
	if s.note == "" {
		return nil
	}
	emit(message.Event{Type: message.EventGuard, SessionID: session, Guard: &message.Guard{Kind: s.kind, Text: s.note}})
	return addSynthetic(ctx, s.note)
}

// refuseInFinalStep answers the calls a model made in the tool-less last
// step without running them.
func refuseInFinalStep(ctx context.Context, sp *stepper, e *message.Entry, calls []int) {
	for _, ix := range calls {
		sp.finishTool(ctx, e, ix, tools.Result{IsError: true,
			Output: "Not run: this is the run's last step and no tools are available; answer with what you have."})
	}
}
