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

// startupTrace reports the phases to report, a func (Options.StartupTrace;
// nil reports nothing), and remembers which once-only phases were
// reported. It needs no lock: report is set at Open, and the once-only
// phases are flipped atomically.
type startupTrace struct {
	report              func(phase string, began time.Time)
	requested, answered atomic.Bool
}

// phase reports phase to the trace; a zero began means it began where the
// previous main-path phase ended.
func (t *startupTrace) phase(phase string, began time.Time) {
	if t.report != nil {
		t.report(phase, began)
	}
}

// firstRequest reports "first request", once.
func (t *startupTrace) firstRequest() { t.once(&t.requested, "first request") }

// firstByte reports "first byte", once.
func (t *startupTrace) firstByte() { t.once(&t.answered, "first byte") }

// once reports phase the first time done is flipped.
func (t *startupTrace) once(done *atomic.Bool, phase string) {
	if t.report != nil && done.CompareAndSwap(false, true) {
		t.report(phase, time.Time{})
	}
}
