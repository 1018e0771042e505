//go:build linux

package snapshot

// packpair.go: a large first snapshot's blobs in two packs, each with its
// own checksum and writer goroutine (issue 26: outside git, the first
// snapshot at the cost of `tar c`; one pack's SHA-1, a serial chain of
// every byte stored, held the readers back at its full queue). Contract:
// a first snapshot of at least pairMin paths stores each path's blob in
// the pack packHalf chooses for it (a hash of the path: the same path,
// the same pack; the bytes fall about evenly); a, the first, also takes
// the trees and the root. Each pack is planned (packplan.go) from the
// paths it gets: b a blob each, a the rest of plannedObjects, so neither
// is read back. git reads any number of packs; an object in both (two
// files alike, the filler blobs) is harmless (git gc keeps one). finish
// finishes b, then a, and removes b when a fails: a failed first snapshot
// leaves no pack behind; abort removes both unfinished. Below pairMin
// paths there is one pack, a, as before.

import "os"

// pairMin is the fewest paths a first snapshot splits into two packs.
var pairMin = 2000

type packPair struct {
	a, b *packWriter // b nil: one pack
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
	a, err := newPackWriter(gitDir, secrets, total-nb)
	if err != nil || nb == 0 {
		return &packPair{a: a}, err
	}
	b, err := newPackWriter(gitDir, secrets, nb)
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
	return &packPair{a: a, b: b}, nil
}

// of is the pack path p's blob goes to.
func (pp *packPair) of(p string) *packWriter {
	if pp.b != nil && packHalf(p) {
		return pp.b
	}
	return pp.a
}

// body is blobPut.body for the pair: storeNew (goindex.go) into p's pack.
func (pp *packPair) body(tracked map[string][20]byte) func(p string, body []byte) (string, error) {
	return func(p string, body []byte) (string, error) {
		return storeNew(pp.of(p).put, tracked)(p, body)
	}
}

// finish finishes b, then a; when a fails b is removed.
func (pp *packPair) finish() error {
	if pp.b == nil {
		return pp.a.finish()
	}
	if err := pp.b.finish(); err != nil {
		pp.a.abort()
		return err
	}
	if err := pp.a.finish(); err != nil {
		if pp.b.base != "" {
			os.Remove(pp.b.base + ".idx") // git no longer looks in it
			os.Remove(pp.b.base + ".pack")
		}
		return err
	}
	return nil
}

// abort removes both unfinished packs.
func (pp *packPair) abort() {
	pp.a.abort()
	if pp.b != nil {
		pp.b.abort()
	}
}
