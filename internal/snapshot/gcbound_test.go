package snapshot

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// gcBoundSink holds a test's heap while a bound is in force.
var gcBoundSink []byte

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestGCBoundCollectsWhenTheLastEnds: what the bounded work held is
// garbage when its bound ends; collected then, the next goal is the
// restored percent of what is left, not of what was held (at 100,000
// paths the goal went from ≈ 27 to ≈ 44 MiB and the next step reached
// it: +12 MiB of peak RSS). A nested bound's end does not collect, nor
// does a bound never set (a small update).
func TestGCBoundCollectsWhenTheLastEnds(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	const held = 64 << 20
	outer := boundGC(gcBoundMin)
	inner := boundGC(gcBoundMin)
	gcBoundSink = make([]byte, held)
	for i := range gcBoundSink {
		gcBoundSink[i] = byte(i)
	}
	runtime.GC() // the bounded work's collections saw it live
	if live := liveHeap(); live < held {
		t.Fatalf("live heap %d, want ≥ %d", live, held)
	}
	gcBoundSink = nil // done with: garbage
	inner()
	if live := liveHeap(); live < held {
		t.Fatalf("a nested bound's end collected (live %d)", live)
	}
	if p := debug.SetGCPercent(gcBoundPercent); p != gcBoundPercent {
		t.Fatalf("GC percent %d while bounded, want %d", p, gcBoundPercent)
	}
	outer()
	if live := liveHeap(); live >= held {
		t.Fatalf("the last bound ended and the heap it held was not collected: live %d", live)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GC percent %d after the bounds, want 100 restored", p)
	}
	outer() // a second call does nothing
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := ms.NumGC
	boundGC(gcBoundMin - 1)() // no bound: no collection
	runtime.ReadMemStats(&ms)
	if ms.NumGC != n {
		t.Fatalf("an unbounded update collected")
	}
}

// A bound that found the collector off (startheap.go's relaxStartupGC:
// off until the first tool call, or until a collection under the
// startup memory limit) changed nothing; if the owner turns the
// collector back on while the bound is in force, the bound's end must
// not turn it off again (with the memory limit restored too, nothing
// would ever collect).
func TestGCBoundEndKeepsAnotherOwnersPercent(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	end := boundGC(gcBoundMin) // found off: left off
	debug.SetGCPercent(100)    // startheap.go's restore, meanwhile
	end()
	if got := debug.SetGCPercent(old); got != 100 {
		t.Fatalf("after the bound's end GOGC is %d; the owner had set 100 during it", got)
	}
}
