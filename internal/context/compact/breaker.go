package compact

// The circuit breaker: compaction is bounded. Until a request goes through,
// at most MaxAttemptsPerTurn attempts are made (summary or fallback); the
// last is always the model-free fallback, which needs no call and so
// cannot be refused. A summary is tried while fewer than MaxSummaryFailures
// summaries failed in the turn: after that the turn compacts without a
// model. When the attempts are spent and the request still does not fit,
// the turn fails with an error that says what the user can do; it never
// spends without bound. A request that goes through gives the attempts
// back (Through): a long turn in a small window may need a compaction every
// few steps, and each of those is progress, not thrash.

import (
	"errors"
	"fmt"
)

// MaxAttemptsPerTurn bounds the compaction attempts of one turn (or one
// /compact).
const MaxAttemptsPerTurn = 3

// MaxSummaryFailures is how many failed summary attempts (an error, a
// refusal, an empty summary, one that does not shrink the context) lead to
// the fallback.
const MaxSummaryFailures = 2

// AttemptKind is what a compaction attempt does.
type AttemptKind int

// The kinds of attempt.
const (
	// AttemptNone: the turn's attempts are spent.
	AttemptNone AttemptKind = iota
	// AttemptSummary asks a model for a summary.
	AttemptSummary
	// AttemptFallback compacts without a model (PlanFallback).
	AttemptFallback
)

// Breaker counts compaction attempts. The zero value is a fresh turn.
type Breaker struct {
	// Made is the number of attempts since the last request that went
	// through; SummaryFailures the number of summary attempts of the turn
	// that failed.
	Made, SummaryFailures int
}

// Through returns the breaker after a request went through: the attempts
// are given back, the turn's failed summaries still count.
func (b Breaker) Through() Breaker { return Breaker{SummaryFailures: b.SummaryFailures} }

// Next returns the kind of the next attempt.
func (b Breaker) Next() AttemptKind {
	switch {
	case b.Made >= MaxAttemptsPerTurn:
		return AttemptNone
	case b.SummaryFailures >= MaxSummaryFailures, b.Made == MaxAttemptsPerTurn-1:
		return AttemptFallback
	}
	return AttemptSummary
}

// ErrAttemptsSpent is wrapped by the error of a turn whose compaction
// attempts are spent.
var ErrAttemptsSpent = errors.New("compaction attempts spent")

// ErrFixedTooBig is wrapped by the error of a turn whose fixed prompt
// alone does not fit: no compaction can help.
var ErrFixedTooBig = errors.New("the fixed prompt alone does not fit the model")

// Fixed is the part of every request no compaction shrinks, in estimated
// tokens: the system prompt (AGENTS.md included), the tool schemas and the
// pins.
type Fixed struct {
	System, Tools, Pins int64
}

// Total is the fixed part's size.
func (f Fixed) Total() int64 { return f.System + f.Tools + f.Pins }

// GiveUp is the error of a turn whose request still does not fit below
// limit (the size the provider refused, or the compaction point) after
// attempts compaction attempts (MaxAttemptsPerTurn, or fewer when nothing
// was left to compact): it names the cause and what the user can do. When
// the fixed part alone reaches limit it says so, with its sizes, instead of
// blaming the conversation (and wraps ErrFixedTooBig).
func GiveUp(attempts int, cause error, fixed Fixed, limit int64) error {
	if limit > 0 && fixed.Total() >= limit {
		pins := ""
		if fixed.Pins > 0 {
			pins = fmt.Sprintf(", pins ~%d", fixed.Pins)
		}
		return fmt.Errorf("%w: system prompt ~%d tokens (AGENTS.md included), tool schemas ~%d%s — %d in all, and the request must stay under %d; "+
			"no compaction can shrink them: switch to a model with a larger window, shorten AGENTS.md, offer fewer tools (MCP servers, tools config) or unpin facts (%w after %d attempts)",
			ErrFixedTooBig, fixed.System, fixed.Tools, pins, fixed.Total(), limit, ErrAttemptsSpent, attempts)
	}
	return fmt.Errorf("the conversation still does not fit the model after %d compaction attempts (%w: %v); "+
		"run /compact (agent compact) with a focus to summarise it yourself, switch to a model with a larger window, or start a new session with /new",
		attempts, ErrAttemptsSpent, cause)
}
