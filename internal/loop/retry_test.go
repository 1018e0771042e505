package loop

import (
	"errors"
	"net"
	"testing"

	"github.com/ctxloop/agent/internal/provider"
)

func TestAttemptsFor(t *testing.T) {
	p := DefaultRetryPolicy
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"rate limited", &provider.Error{Class: provider.ClassRetryable, StatusCode: 429}, p.Attempts},
		{"broken stream", &provider.Error{Class: provider.ClassBrokenStream}, p.Attempts},
		{"connection refused", &provider.Error{Class: provider.ClassRetryable, Err: &net.OpError{Op: "dial", Err: errors.New("refused")}}, unreachableAttempts},
		// A server silent for the whole idle timeout, three times running,
		// is not coming back soon: 3 × 120 s is already six minutes.
		{"idle timeout", &provider.Error{Class: provider.ClassRetryable, Err: provider.ErrIdleTimeout}, unreachableAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.AttemptsFor(tt.err); got != tt.want {
				t.Errorf("AttemptsFor(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}
