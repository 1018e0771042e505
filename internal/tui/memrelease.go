package tui

// Opening a long session allocates far more than it keeps: the whole
// history decoded from the database, the request cache warmed from it,
// the chat's items built. Go returns the freed pages to the system only
// slowly (its scavenger), so a chat left idle after a resume would hold
// that peak as RSS for minutes. Once a session with a history has opened,
// releaseOpenPeak collects and returns the freed memory, on the command's
// own goroutine (the event loop goes on; a collection's pauses are short).
//
// The open goes on after its collection: the tail's Markdown renders,
// the first frames, the environment's gathering allocate and free a few
// MB more (on a resumed 10,000-part session 0.6–1.2 MiB were still held
// 2 s later). So the command then waits for the process to go quiet —
// less than quietAllocBytes allocated in a quietPoll, read from the
// runtime's own counter, for at most quietWait — and collects once more,
// on a goroutine of its own: it holds nothing and blocks no one.

import (
	"runtime/debug"
	"runtime/metrics"
	"time"

	tea "charm.land/bubbletea/v2"
)

// releaseOpenPeakMinEntries is the history below which an open is not
// worth a collection.
const releaseOpenPeakMinEntries = 200

const (
	// quietPoll is how often the wait for quiet reads the allocations.
	quietPoll = 100 * time.Millisecond
	// quietAllocBytes is what a quiet process allocates in a quietPoll
	// at most (an idle chat: a few KB; the open's renders: MBs).
	quietAllocBytes = 256 << 10
	// quietWait bounds the wait: a chat in use by then collects anyway.
	quietWait = 5 * time.Second
)

// releasedOpenPeak is called after each collection releaseOpenPeak's
// command makes, with its number, 1 or 2 (a test's hook, read when the
// command is made).
var releasedOpenPeak = func(int) {}

// releaseOpenPeak returns a command that gives the memory freed by an
// open of entries history entries back to the system, at once and again
// when the open's follow-up work is over; nil for a short history.
func releaseOpenPeak(entries int) tea.Cmd {
	if entries < releaseOpenPeakMinEntries {
		return nil
	}
	released := releasedOpenPeak
	return func() tea.Msg {
		debug.FreeOSMemory()
		released(1)
		go func() { // the command returns: nothing batched or sequenced with it waits
			waitQuiet(quietPoll, quietAllocBytes, quietWait)
			debug.FreeOSMemory()
			released(2)
		}()
		return nil
	}
}

// waitQuiet returns once the process has allocated less than limit bytes
// in an interval of poll (true), or after most (false).
func waitQuiet(poll time.Duration, limit uint64, most time.Duration) bool {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	last := s[0].Value.Uint64()
	t := time.NewTicker(poll)
	defer t.Stop()
	deadline := time.Now().Add(most)
	for range t.C {
		metrics.Read(s)
		now := s[0].Value.Uint64()
		if now-last < limit {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		last = now
	}
	return false // not reached: a ticker's channel is never closed
}
