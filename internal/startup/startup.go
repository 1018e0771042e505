// Package startup traces where the agent's start-up time goes. With
// AGENT_TRACE_STARTUP=1 in the environment, each phase prints one line to
// stderr as it ends:
//
//	startup: open db 1.3ms (at 14.2ms, rss 12.1+4.0MiB)
//
// the phase's duration, then the time since the process started (measured
// from the Go runtime's start, which is within a fraction of a millisecond
// of exec) and the resident memory then, anonymous + file-backed (the
// binary's pages), where Linux's /proc tells it. Phases on the main path are Marks: each lasts from the previous
// Mark. Work that runs beside the main path (the prompt's environment,
// read while the database opens) reports its own start with Span and does
// not move the main path's clock.
//
// Contract: off (the default) every function is one load of a bool and
// returns; nothing is allocated, read or written. On, lines are written
// whole, one at a time, in the order the phases end; durations are wall
// clock and are for reading, not for asserting on (the phases' names are
// what a test may check).
package startup

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvVar is the environment variable that turns the trace on ("1").
const EnvVar = "AGENT_TRACE_STARTUP"

// std is the process's trace: on when EnvVar is "1".
var std = newTracer(os.Getenv(EnvVar) == "1", os.Stderr, processStart)

// Enabled reports whether the trace is on.
func Enabled() bool { return std.on }

// Mark ends the main-path phase name, which began at the previous Mark (the
// first one at the process's start).
func Mark(name string) { std.mark(name) }

// Span ends the phase name that began at began and ran beside the main
// path.
func Span(name string, began time.Time) { std.span(name, began) }

// Hook is Mark and Span in one function, for a package that must not
// import this one (the loop takes it as an option): a zero began is a
// Mark. It is nil when the trace is off, so that the caller's check is a
// nil test.
func Hook() func(name string, began time.Time) {
	if !std.on {
		return nil
	}
	return func(name string, began time.Time) {
		if began.IsZero() {
			Mark(name)
		} else {
			Span(name, began)
		}
	}
}

// tracer is a trace written to w; on is fixed at creation.
type tracer struct {
	on    bool
	mu    sync.Mutex
	w     io.Writer
	start time.Time // the process's start
	last  time.Time // the end of the previous Mark
}

func newTracer(on bool, w io.Writer, start func() time.Time) *tracer {
	t := &tracer{on: on, w: w}
	if on {
		t.start = start()
		t.last = t.start
	}
	return t
}

func (t *tracer) mark(name string) {
	if !t.on {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(name, now.Sub(t.last), now)
	t.last = now
}

func (t *tracer) span(name string, began time.Time) {
	if !t.on {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(name, now.Sub(began), now)
}

// write prints one line; the caller holds mu.
func (t *tracer) write(name string, d time.Duration, now time.Time) {
	fmt.Fprintf(t.w, "startup: %s %s (at %s%s)\n", name, ms(d), ms(now.Sub(t.start)), rss())
}

// rss is ", rss A+FMiB" from /proc/self/status (anonymous and file-backed
// resident memory), or "" where there is none.
func rss() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	var anon, file float64
	var found int
	for _, line := range strings.Split(string(data), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "RssAnon" && name != "RssFile") {
			continue
		}
		kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			return ""
		}
		if name == "RssAnon" {
			anon = kib / 1024
		} else {
			file = kib / 1024
		}
		found++
	}
	if found != 2 {
		return ""
	}
	return fmt.Sprintf(", rss %.1f+%.1fMiB", anon, file)
}

// ms formats d in milliseconds with one decimal.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}

// processStart estimates when the process started: the Go runtime's start.
// A time.Time's monotonic reading counts from the time package's
// initialisation, one of the first things the runtime does; its String
// shows it as "m=+S.NNNNNNNNN". Without it, now is all there is.
func processStart() time.Time {
	now := time.Now()
	_, mono, ok := strings.Cut(now.String(), " m=")
	if !ok {
		return now
	}
	s, err := strconv.ParseFloat(mono, 64)
	if err != nil {
		return now
	}
	return now.Add(-time.Duration(s * float64(time.Second)))
}
