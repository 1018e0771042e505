//go:build linux

package snapshot

// packpair.go: a large first snapshot's blobs in two packs, each with its
// own checksum and writer goroutine (issue 26: outside git, the first
// snapshot at the cost of `tar c`; one pack's SHA-1, a serial chain of
// every byte stored, held the readers back at its full queue). Contract:
// a first snapshot of at least pairMin paths stores each path's blob in
// the pack pick chooses for it as it is stored: of those with room left,
// the one whose queue takes it without a wait, else the one given fewer
// bytes so far, so that both checksum goroutines end together; a, the first, also takes the trees and the root. Each pack is
// planned (packplan.go) from the paths: b a blob for about half of them
// (packHalf), a the rest of plannedObjects, each with room for a few
// more (slack, padded with filler blobs when unused), so neither is read
// back; a path takes at most one pack's room (one pick), so both never
// run out.
// git reads any number of packs; an object in both (two files alike, the
// filler blobs) is harmless (git gc keeps one). finishB finishes b on its
// own goroutine once every blob is stored (the trees, a's, are written
// meanwhile); finish finishes b (or waits for finishB's), then a, and
// removes b when a fails: a failed first snapshot leaves no pack behind;
// abort removes both, b even when finishB finished it. Below pairMin
// paths there is one pack, a, as before.

import (
	"os"
	"sync"
)

// pairMin is the fewest paths a first snapshot splits into two packs.
var pairMin = 2000

type packPair struct {
	a, b *packWriter // b nil: one pack
	mu   sync.Mutex
	room [2]int     // the blobs a and b can still take
	fed  [2]int64   // the bytes given to a and b
	bEnd chan error // finishB's result (nil: not started)
}

// packHalf reports whether path p's blob goes to the second pack (FNV-1a,
// a bit from the middle: about half of any set of names).
func packHalf(p string) bool {
	h := uint32(2166136261)
	for i := 0; i < len(p); i++ {
		h = (h ^ uint32(p[i])) * 16777619
	}
	return h>>15&1 == 1
}

// newPackPair starts the pack(s) of a first snapshot storing paths.
func newPackPair(gitDir string, secrets []string, paths []string) (*packPair, error) {
	total := plannedObjects(paths)
	nb := 0
	if len(paths) >= pairMin {
		for _, p := range paths {
			if packHalf(p) {
				nb++
			}
		}
	}
	// Each pack has room for slack blobs more than its share: pick
	// balances their bytes until one's room runs out; what is left over
	// is padded with filler blobs (packplan.go).
	slack := 0
	if nb > 0 {
		slack = len(paths)/32 + 8
	}
	a, err := newPackWriter(gitDir, secrets, total-nb+slack)
	if err != nil || nb == 0 {
		return &packPair{a: a}, err
	}
	b, err := newPackWriter(gitDir, secrets, nb+slack)
	if err != nil {
		a.abort()
		return nil, err
	}
	// The two queues hold what one did (peak RSS): nothing is sent yet.
	for _, p := range []*packWriter{a, b} {
		p.pipe.mu.Lock()
		p.pipe.budget = pipeBudget / 2
		p.pipe.mu.Unlock()
	}
	return &packPair{a: a, b: b, room: [2]int{len(paths) - nb + slack, nb + slack}}, nil
}

// pick is the pack a blob of size bytes goes to, of those with room
// left: the one whose queue takes it now when the other's is full (a
// reader waits at neither while one can write), else the one given fewer
// bytes.
func (pp *packPair) pick(size int) *packWriter {
	if pp.b == nil {
		return pp.a
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	i := 0
	switch fitsA, fitsB := pp.a.pipe.fits(size), pp.b.pipe.fits(size); {
	case pp.room[0] <= 0:
		i = 1
	case pp.room[1] <= 0:
	case fitsA != fitsB:
		if fitsB {
			i = 1
		}
	case pp.fed[1] < pp.fed[0]:
		i = 1
	}
	pp.room[i]--
	pp.fed[i] += int64(size)
	return [2]*packWriter{pp.a, pp.b}[i]
}

// body is blobPut.body for the pair: storeNew (goindex.go) into the pack
// pick chooses.
func (pp *packPair) body(tracked map[string][20]byte) func(p string, body []byte) (string, error) {
	return func(p string, body []byte) (string, error) {
		put := func(kind string, body []byte) (string, error) { return pp.pick(len(body)).put(kind, body) }
		return storeNew(put, tracked)(p, body)
	}
}

// finishB starts finishing b, every blob stored, beside what a still
// takes (the trees).
func (pp *packPair) finishB() {
	if pp.b == nil || pp.bEnd != nil {
		return
	}
	pp.bEnd = make(chan error, 1)
	go func() { pp.bEnd <- pp.b.finish() }()
}

// waitB is b's finish: finishB's result, or b finished now.
func (pp *packPair) waitB() error {
	if pp.bEnd == nil {
		return pp.b.finish()
	}
	err := <-pp.bEnd
	pp.bEnd <- err // for a later wait (abort after finish)
	return err
}

// removeB removes b once finished.
func (pp *packPair) removeB() {
	if pp.b.base != "" {
		os.Remove(pp.b.base + ".idx") // git no longer looks in it
		os.Remove(pp.b.base + ".pack")
	}
}

// finish finishes b, then a; when a fails b is removed.
func (pp *packPair) finish() error {
	if pp.b == nil {
		return pp.a.finish()
	}
	if err := pp.waitB(); err != nil {
		pp.a.abort()
		return err
	}
	if err := pp.a.finish(); err != nil {
		pp.removeB()
		return err
	}
	return nil
}

// abort removes both unfinished packs (b also when finishB finished it).
func (pp *packPair) abort() {
	pp.a.abort()
	switch {
	case pp.b == nil:
	case pp.bEnd != nil:
		if pp.waitB() == nil {
			pp.removeB()
		}
	default:
		pp.b.abort()
	}
}
