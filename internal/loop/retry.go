package loop

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// RetryPolicy is how retryable provider errors are retried: exponential
// backoff with jitter from Initial, capped at Max, at most Attempts
// attempts in all (the first call included).
type RetryPolicy struct {
	Initial  time.Duration
	Max      time.Duration
	Attempts int
}

// DefaultRetryPolicy starts at 1 s, caps at 60 s and tries 8 times.
var DefaultRetryPolicy = RetryPolicy{Initial: time.Second, Max: 60 * time.Second, Attempts: 8}

// Delay returns how long to wait before retry number attempt (1 for the
// first retry). A server's Retry-After wins when given, capped at Max; the
// computed backoff gets "equal jitter" (half fixed, half random) so that
// many clients do not retry in step.
func (p RetryPolicy) Delay(attempt int, retryAfter time.Duration, rnd *rand.Rand) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.Max)
	}
	d := p.Initial
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + time.Duration(rnd.Int64N(int64(half)+1))
}

// unreachableAttempts bounds the attempts when the server cannot be reached
// at all (connection refused, unknown host): a wrong base URL should be
// reported in seconds, while a local server that is restarting still gets
// a second chance. A server that sent nothing for the whole idle timeout
// gets as many: three silences of 120 s are already six minutes.
const unreachableAttempts = 3

// AttemptsFor returns how many attempts an error deserves.
func (p RetryPolicy) AttemptsFor(err error) int {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial" || errors.Is(err, provider.ErrIdleTimeout) {
		return min(p.Attempts, unreachableAttempts)
	}
	return p.Attempts
}

// retryDelay decides whether a failed call (attempt, counting from 1) is
// tried again, and after how long.
func (sp *stepper) retryDelay(attempt int, err error) (time.Duration, bool) {
	perr := provider.Classify(err)
	if !perr.Retryable() || attempt >= sp.opt.Retry.AttemptsFor(err) {
		return 0, false
	}
	return sp.opt.Retry.Delay(attempt, perr.RetryAfter, sp.rnd), true
}

// waitRetry announces a retry and waits for it; a cancel ends the wait.
func (sp *stepper) waitRetry(ctx context.Context, attempt int, delay time.Duration, err error) error {
	sp.emit(message.Event{Type: message.EventRetrying, SessionID: sp.sessionID, Retry: &message.RetryInfo{
		Attempt: attempt + 1, Delay: delay, Reason: provider.Classify(err).Error(),
	}})
	return sp.opt.Sleep(ctx, delay)
}

// sleepCtx waits for d or until ctx is done, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
