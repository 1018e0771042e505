package snapshot

// gcbound.go: while a large update holds its records (goindex.go), the
// collector runs at a lower GOGC, so the heap peaks at ≈ 1.25× what is
// live, not 2× (at 100,000 paths: ≈ 20 MiB less RSS for ≈ 5% more CPU:
// the files' bodies are pooled, so little is allocated a path). Contract:
// boundGC(n) with n ≥ gcBoundMin lowers the GC percent (never raises it)
// until the function it returns is called; nested and concurrent bounds
// restore the setting they found once the last one ends.

import (
	"runtime/debug"
	"sync"
)

// gcBoundMin is the fewest paths an update bounds the collector for.
const gcBoundMin = 20_000

// gcBoundPercent is GOGC while bounded.
const gcBoundPercent = 25

var gcBound struct {
	sync.Mutex
	n   int // bounds in force
	old int // the percent before the first
}

func boundGC(paths int) (restore func()) {
	if paths < gcBoundMin {
		return func() {}
	}
	gcBound.Lock()
	defer gcBound.Unlock()
	if gcBound.n == 0 {
		// Never raised, nor turned on when off (-1).
		if gcBound.old = debug.SetGCPercent(gcBoundPercent); gcBound.old < gcBoundPercent {
			debug.SetGCPercent(gcBound.old)
		}
	}
	gcBound.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			gcBound.Lock()
			defer gcBound.Unlock()
			if gcBound.n--; gcBound.n == 0 {
				debug.SetGCPercent(gcBound.old)
			}
		})
	}
}
