package tui

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

func TestCollectDue(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name              string
		inUse, live, goal uint64
		want              bool
	}{
		{"just collected", 4 * mib, 4 * mib, 8 * mib, false},
		{"under a third of the room", 4*mib + mib/2, 4 * mib, 7 * mib, false},
		{"at a third of the room", 5 * mib, 4 * mib, 7 * mib, false},
		{"past a third of the room", 5*mib + 1, 4 * mib, 7 * mib, true},
		{"LaterTurn's heap that met a collection", 2540 << 10, 1320 << 10, 4190 << 10, true},
		{"at the goal", 8 * mib, 4 * mib, 8 * mib, true},
		{"a goal under what lived", 1 * mib, 4 * mib, 4 * mib, true},
		{"a large heap at its goal", 64 * mib, 32 * mib, 64 * mib, false},
		{"the largest heap collected ahead", 11 * mib, 8 * mib, 16 * mib, true},
		{"a resumed long session's heap", 15 * mib, 9 * mib, 18 * mib, false},
	} {
		if got := collectDue(c.inUse, c.live, c.goal); got != c.want {
			t.Errorf("%s: collectDue(%d, %d, %d) = %v, want %v", c.name, c.inUse, c.live, c.goal, got, c.want)
		}
	}
}

var aheadSink []byte

// heapPastAThirdOfItsRoom collects, then allocates garbage until the heap
// has used more than a third of the room the collection left it.
func heapPastAThirdOfItsRoom(t *testing.T) {
	runtime.GC()
	s := make([]metrics.Sample, len(aheadSamples))
	for i, name := range aheadSamples {
		s[i].Name = name
	}
	for range 1 << 16 {
		metrics.Read(s)
		if collectDue(s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()) {
			return
		}
		aheadSink = make([]byte, 32<<10)
	}
	t.Fatal("the heap never got past a third of its room")
}

// TestTypingCollectsAheadWhenTheHeapIsPastAThirdOfItsRoom: the first key of a
// message, and every update while it is typed, collect when the heap has
// used more than a third of its room, so that the collection does not fall
// between Enter and the request.
func TestTypingCollectsAheadWhenTheHeapIsPastAThirdOfItsRoom(t *testing.T) {
	var p envPrefetch
	heapPastAThirdOfItsRoom(t)
	before := aheadCollections.Load()
	p.start(false, nil, false, "", nil) // the first key
	if p.ahead == nil {
		t.Fatal("the first key started no collection ahead")
	}
	<-p.ahead
	if aheadCollections.Load() == before {
		t.Fatal("the first key of a message made no collection with the heap past a third of its room")
	}

	heapPastAThirdOfItsRoom(t)
	before = aheadCollections.Load()
	first := p.ahead
	p.start(false, nil, false, "", nil) // a later key
	if p.ahead == first {
		t.Fatal("a key while typing started no collection with the heap past a third of its room")
	}
	<-p.ahead
	if aheadCollections.Load() == before {
		t.Fatal("a key while typing made no collection with the heap past a third of its room")
	}

	p.start(true, nil, false, "", nil) // sent: the editor is empty
	heapPastAThirdOfItsRoom(t)
	before = aheadCollections.Load()
	p.start(true, nil, false, "", nil) // an update with nothing typed
	if aheadRunning.Load() {
		t.Fatal("an update with the editor empty started a collection")
	}
	if collected := aheadCollections.Load(); collected != before {
		t.Fatalf("an update with the editor empty collected (%d collections, was %d)", collected, before)
	}
}
