package main

// startheap.go: a headless run's first step runs without the garbage
// collector's 4 MB starting heap (issue 36, resume5). `agent run -c` on a
// long session allocates ≈ 3.5 MB before its answer — the window's rows,
// the first request built from them — most of it live until the process
// exits a few milliseconds later; at GOGC=100 that crosses the runtime's
// 4 MB starting goal and starts a collection that frees nothing anyone
// reuses, and costs more CPU and more resident memory (the collector's own
// pages) than it saves: measured on a 10,000-part session, no collection
// is −2 to −3 ms of CPU, −300 page faults and −1 MiB peak RSS. The Go
// compiler does the same at its start (cmd/compile's AdjustStartingHeap).
//
// Contract: relaxStartupGC turns the percentage-based collector off and
// bounds the heap instead by a memory limit startupHeapBudget above what
// the runtime holds now, until restore — the first tool call (runPrompt's
// observer: a step with tools is followed by more) — or until a
// collection happens anyway (the budget spent: a run that allocates more
// than it holds gets the normal collector back at once, so it never works
// against the limit). A step that answers is not followed by a restore:
// the percentage put back there would start the very collection this
// avoids, while the process is ending. restore
// puts back the percentage and the limit as they were, once, from any
// goroutine. A user's GOGC or GOMEMLIMIT is left alone: nothing is changed.

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/ctxloop/agent/internal/message"
)

// startupHeapBudget is how much a run may allocate past what the runtime
// holds at its start before the collector runs: twice what a resumed
// 10,000-part session's first step allocates.
const startupHeapBudget = 8 << 20

// startupGC is the collector's setting before a run relaxed it; restored
// is closed once it is put back.
type startupGC struct {
	once     sync.Once
	percent  int   // the percentage before
	limit    int64 // the memory limit before
	restored chan struct{}
}

// relaxStartupGC relaxes the collector as the file's comment says; nil
// when the environment sets it (GOGC, GOMEMLIMIT). A nil *startupGC's
// methods do nothing.
func relaxStartupGC() *startupGC {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	g := &startupGC{restored: make(chan struct{})}
	g.limit = debug.SetMemoryLimit(-1) // -1 reads it
	debug.SetMemoryLimit(min(g.limit, runtimeHeld()+startupHeapBudget))
	g.percent = debug.SetGCPercent(-1)
	// A collection before restore means the budget was spent: the
	// sentinel's cleanup (run after the collection that found it
	// unreachable) gives the normal collector back.
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(g *startupGC) { g.restore() }, g)
	return g
}

// restore puts the collector back as it was before relaxStartupGC.
func (g *startupGC) restore() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		debug.SetGCPercent(g.percent)
		debug.SetMemoryLimit(g.limit)
		close(g.restored)
	})
}

// observe returns next with the collector restored at the first tool
// call: what follows (tools' output, more steps) is collected as usual.
func (g *startupGC) observe(next func(message.Event)) func(message.Event) {
	if g == nil {
		return next
	}
	return func(ev message.Event) {
		if ev.Type == message.EventPartUpdated && ev.Part != nil && ev.Part.Type == message.PartTool {
			g.restore()
		}
		if next != nil {
			next(ev)
		}
	}
}

// runtimeHeld is the memory the Go runtime holds from the operating system
// now (what its memory limit counts), or 0 when it cannot tell (then the
// limit is the budget itself).
func runtimeHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	held := s[0].Value.Uint64() - s[1].Value.Uint64()
	if held > math.MaxInt64/2 {
		return 0
	}
	return int64(held)
}
