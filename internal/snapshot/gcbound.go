package snapshot

// gcbound.go: while a large update holds its records (goindex.go), the
// collector runs at a lower GOGC, so the heap peaks at ≈ 1.25× what is
// live, not 2× (at 100,000 paths: ≈ 20 MiB less RSS for ≈ 5% more CPU:
// the files' bodies are pooled, so little is allocated a path). Contract:
// boundGC(n) with n ≥ gcBoundMin lowers the GC percent (never raises it)
// until the function it returns is called; nested and concurrent bounds
// restore the setting they found once the last one ends (unless it was
// changed meanwhile by someone else: theirs stays), and that last
// end collects once: what the bounded work held is garbage by then, and
// the restored percent's next goal would be twice the heap it held (at
// 100,000 paths ≈ 44 MiB, not ≈ 10: the next step reached it, +12 MiB
// of peak RSS), for one collection of what is left (≈ 5 MiB: a few ms).

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// gcBoundMin is the fewest paths an update bounds the collector for.
const gcBoundMin = 20_000

// gcBoundPercent is GOGC while bounded.
const gcBoundPercent = 25

var gcBound struct {
	sync.Mutex
	n       int  // bounds in force
	old     int  // the percent before the first
	lowered bool // the first lowered it: the last end puts old back
}

func boundGC(paths int) (restore func()) {
	if paths < gcBoundMin {
		return func() {}
	}
	gcBound.Lock()
	defer gcBound.Unlock()
	if gcBound.n == 0 {
		// Never raised, nor turned on when off (-1).
		gcBound.old = debug.SetGCPercent(gcBoundPercent)
		if gcBound.lowered = gcBound.old >= gcBoundPercent; !gcBound.lowered {
			debug.SetGCPercent(gcBound.old)
		}
	}
	gcBound.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			gcBound.Lock()
			last := false
			if gcBound.n--; gcBound.n == 0 {
				// The bound's percent is put back, unless another owner
				// changed it meanwhile (cmd/agent's startheap.go turns
				// the collector back on at a run's first tool call):
				// theirs stays.
				if gcBound.lowered {
					if now := debug.SetGCPercent(gcBound.old); now != gcBoundPercent {
						debug.SetGCPercent(now)
					}
				}
				last = true
			}
			gcBound.Unlock()
			if last {
				runtime.GC()
			}
		})
	}
}

// gcWatch bounds the collector once a walk has listed gcBoundMin paths
// (a first snapshot of a large tree: its lists are the heap), until end;
// a small tree's walk runs at the process's setting. A nil gcWatch
// watches nothing.
type gcWatch struct {
	n       atomic.Int64
	mu      sync.Mutex
	restore func()
}

// add counts k more paths listed.
func (g *gcWatch) add(k int) {
	if g == nil {
		return
	}
	if n := g.n.Add(int64(k)); n >= gcBoundMin && n-int64(k) < gcBoundMin {
		g.mu.Lock()
		g.restore = boundGC(gcBoundMin)
		g.mu.Unlock()
	}
}

// end lifts the bound, if one was set.
func (g *gcWatch) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restore != nil {
		g.restore()
		g.restore = nil
	}
}
