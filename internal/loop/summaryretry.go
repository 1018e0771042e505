package loop

// Retrying summary requests. A compaction has a model-free fallback, so a
// summariser that keeps failing is given up on quickly instead of being
// retried like a turn: each summary request is tried at most
// SummaryRetryPolicy.Attempts times, and once the summary requests of one
// compaction have taken summaryRetryTotal (calls and the waits between
// them) none is retried or started. A call in flight is not cut: a long
// summary may legitimately take a while to stream. Then the summary
// attempt fails with an error that says it gave up, the breaker goes on to
// its next attempt (the fallback last), and the failed attempt's
// compaction event (Compaction.Error) tells the user which happened.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ctxloop/agent/internal/provider"
)

// SummaryRetryPolicy is how a summary request is retried: 3 attempts,
// back-off from 1 s capped at 8 s.
var SummaryRetryPolicy = RetryPolicy{Initial: time.Second, Max: 8 * time.Second, Attempts: 3}

// summaryRetryTotal is the time the summary requests of one compaction
// may take, calls and waits, before they are no longer retried or started.
const summaryRetryTotal = 20 * time.Second

// errSummaryGaveUp marks a summary request given up on.
var errSummaryGaveUp = errors.New("gave up on the summariser")

// summaryBudget is what one compaction's summary requests have spent. The
// zero value is a fresh budget.
type summaryBudget struct {
	spent time.Duration
}

// start reports an error when nothing is left for a new summary request.
func (b *summaryBudget) start() error {
	if b.spent >= summaryRetryTotal {
		return fmt.Errorf("%w: its requests already took %s of %s", errSummaryGaveUp, b.spent.Round(time.Second), summaryRetryTotal)
	}
	return nil
}

// next decides whether a summary request that failed with err (attempt,
// counting from 1) is tried again and after how long; a retryable error
// that is not retried comes back saying so.
func (b *summaryBudget) next(p RetryPolicy, attempt int, err error, rnd *rand.Rand) (time.Duration, error) {
	perr := provider.Classify(err)
	if !perr.Retryable() {
		return 0, err
	}
	if attempt >= p.AttemptsFor(err) {
		return 0, fmt.Errorf("%w after %d attempts: %w", errSummaryGaveUp, attempt, err)
	}
	delay := p.Delay(attempt, perr.RetryAfter, rnd)
	if b.spent+delay > summaryRetryTotal {
		return 0, fmt.Errorf("%w after %d attempts in %s: %w", errSummaryGaveUp, attempt, b.spent.Round(time.Second), err)
	}
	return delay, nil
}
