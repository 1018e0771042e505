package tui

// Collecting while the user types. A garbage collection that starts
// between Enter and the request on the wire runs beside the send on the
// machine's few cores (its mark workers and the assists it charges to the
// send's own allocations): in BenchmarkEnterToRequest the turns with a
// collection in that window took 9–40 ms against a p50 of 2–4. The heap
// reaches the collector's goal wherever its allocations put it, so the
// chat moves the collection ahead: while a message is being typed, once
// the heap has used more than a third of the room the last collection left it
// (collectDue), it collects on a goroutine of its own, so that the send's
// allocations start from a heap with room for them. It only brings
// forward a collection that would have come soon: a heap under a third
// of its room is left alone, as is a large one (aheadMaxLiveBytes), and at most
// one collection of its own runs at a time. The first key of a message also starts the environment's
// gathering, the request cache's warming and the preconnect
// (prefetch.go), which allocate after the key; the check is made again
// once the process has gone quiet after them, if it does so soon
// (collectAheadAfterQuiet).

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

const (
	// aheadQuietPoll and aheadQuietBytes: the first key's follow-up work
	// is over when less than aheadQuietBytes were allocated in an
	// aheadQuietPoll (the warming of a long session allocates MBs; an
	// idle chat a few KB).
	aheadQuietPoll  = 5 * time.Millisecond
	aheadQuietBytes = 64 << 10
	// aheadQuietWait bounds the wait, and a process not quiet by then
	// is not collected: a collection ahead must be over before Enter
	// comes (BenchmarkEnterVsBare types its message, then presses Enter
	// 50 ms later; a small heap's collection takes 1–3 ms). The warming
	// of a resumed long session runs longer: its collection then met
	// Enter (cmd/agent's Resumed10k 14–25 ms against 10–13 without).
	// Each update while typing still checks.
	aheadQuietWait = 20 * time.Millisecond
)

// aheadMaxLiveBytes is the largest heap (what the last collection left)
// collected ahead: a chat's own, a few MB, whose collection takes 1–3 ms.
// A collection's work grows with the live heap, and one under way when
// Enter comes is what this avoids: that of a resumed 10,000-part session
// (the loop alone holds 7 MB of it; 29 MB in BenchmarkEnterToRequest)
// met Enter and made cmd/agent's Resumed10k slower than without (13–25 ms
// against 10–13, in 4 of 4 runs, with 16 MiB here).
const aheadMaxLiveBytes = 8 << 20

// collectDue reports whether a heap holding inUse bytes of objects, of
// which live survived the last collection, whose next collection comes at
// goal, has used more than a third of the room that collection left it,
// and is small enough to be collected ahead (aheadMaxLiveBytes). The
// runtime starts its own collection before the goal (at 70 % of the room
// or earlier, by its pacer); Enter → request allocates 0.25–0.7 MB in
// BenchmarkEnterToRequest/LaterTurn, whose heap has 3 MB of room (the
// runtime's 4 MB minimum): with half the room as the mark, a heap at 2.5
// of its 4.2 MB still met a collection in that window.
func collectDue(inUse, live, goal uint64) bool {
	if live > aheadMaxLiveBytes {
		return false
	}
	if goal <= live {
		return true
	}
	return inUse > live+(goal-live)/3
}

var (
	// aheadRunning is set while a collection collectAhead started runs.
	aheadRunning atomic.Bool
	// aheadCollections counts the collections collectAhead made.
	aheadCollections atomic.Uint64
)

// aheadSamples are the runtime's figures collectDue reads.
var aheadSamples = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/gc/heap/goal:bytes",
}

// collectAhead starts a collection on a goroutine of its own when one is
// due and none it started runs; it returns at once, with a channel closed
// when that collection is over (nil: none started).
func collectAhead() <-chan struct{} {
	if aheadRunning.Load() {
		return nil
	}
	var s [len(aheadSamples)]metrics.Sample
	for i, name := range aheadSamples {
		s[i].Name = name
	}
	metrics.Read(s[:])
	if !collectDue(s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()) {
		return nil
	}
	if !aheadRunning.CompareAndSwap(false, true) {
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer aheadRunning.Store(false)
		runtime.GC()
		aheadCollections.Add(1)
	}()
	return done
}

// collectAheadAfterQuiet waits, on a goroutine of its own, for the
// process to go quiet, then collects if a collection is due; nothing if
// it is not quiet within aheadQuietWait. It returns at once, with a
// channel closed when it is over.
func collectAheadAfterQuiet() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !waitQuiet(aheadQuietPoll, aheadQuietBytes, aheadQuietWait) { // memrelease.go
			return
		}
		if c := collectAhead(); c != nil {
			<-c
		}
	}()
	return done
}
