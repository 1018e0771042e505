package loop

import (
	"sync/atomic"
	"time"
)

// The start-up trace (AGENT_TRACE_STARTUP, package internal/startup) asks
// the loop when the phases of a session's start end: "session" (the row
// made or read, the lease taken, the history loaded), "prompt env" (the
// system prompt's environment, gathered beside the rest: it reports when
// it began), "first request" (the first request about to be sent) and
// "first byte" (its first event back). Each is reported at most once per
// Runner; with Options.StartupTrace nil nothing is.

// startupTrace remembers which once-only phases were reported.
type startupTrace struct {
	requested, answered atomic.Bool
}

// traceStartup reports phase to the trace; a zero began means it began
// where the previous main-path phase ended.
func (r *Runner) traceStartup(phase string, began time.Time) {
	if r.opt.StartupTrace != nil {
		r.opt.StartupTrace(phase, began)
	}
}

// traceOnce reports phase the first time done is flipped.
func (r *Runner) traceOnce(done *atomic.Bool, phase string) {
	if r.opt.StartupTrace != nil && done.CompareAndSwap(false, true) {
		r.opt.StartupTrace(phase, time.Time{})
	}
}
