package snapshot

// steppack.go: a step's new objects (its changed files' blobs and the trees
// of the directories that changed) in one small pack, not a loose object
// each: creating a file dominates a step's writes (≈ 0.4 ms each on an
// overlay file system, a step writes ≈ 15–20 objects), a pack is two.
// Contract: newStepPack returns a packWriter (packwrite.go), every blob
// deflated (as the loose objects were: a file the user keeps a key in is
// never readable as is in a step's pack; trees, names and ids only, are
// stored as they are: deflating them was half a step's index update),
// whose finish
// writes the pack and its index as for a first snapshot (the index renamed
// last: git sees the pack whole or not at all). So that the packs stay few
// between collections (git looks for an object in each pack; prune.go's
// `git gc` repacks them all), once the store holds stepPackMerge small
// packs (each at most smallPackBytes, made of whole objects only: the
// store's step packs), the new pack also takes their entries, copied as
// they are (each checked against its CRC), and dropMerged removes them
// after the new pack's index is in place: at any moment each object is in
// at least one whole pack, so a killed agent leaves a store that opens. A
// pack it cannot read exactly so is left alone.

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxloop/agent/internal/safefile"
)

const (
	// stepPackMerge is how many small packs the next step's pack takes in.
	stepPackMerge = 16
	// smallPackBytes is the largest pack a step's pack takes in.
	smallPackBytes = 1 << 20
)

// newStepPack starts a step's pack in gitDir, with the store's small packs
// copied in when there are stepPackMerge of them.
func newStepPack(gitDir string, secrets []string) (*packWriter, error) {
	p, err := newPackWriter(gitDir, secrets, 0)
	if err != nil {
		return nil, err
	}
	p.deflateAll = true // its blobs: few and small, never readable as is
	names, _ := os.ReadDir(p.dir)
	var small []string
	for _, d := range names {
		base, ok := strings.CutSuffix(d.Name(), ".idx")
		if !ok || !strings.HasPrefix(base, "pack-") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(p.dir, base+".pack")); err == nil && fi.Size() <= smallPackBytes {
			small = append(small, filepath.Join(p.dir, base))
		}
	}
	if len(small) < stepPackMerge {
		return p, nil
	}
	for _, base := range small {
		if p.copyPack(base) {
			p.merged = append(p.merged, base)
		}
	}
	return p, p.err
}

// copyPack copies the entries of the pack base (.pack and .idx) into p,
// each as it is; false, and nothing copied, when the pack is not one of
// whole objects that p can take whole.
func (p *packWriter) copyPack(base string) bool {
	// Both files are the store's own, read through safefile all the same:
	// a FIFO put in their place must not hang a step, nor a huge file
	// grow the process (an index of a pack this small is under 2 MiB).
	idx, err1 := safefile.Read(context.Background(), base+".idx", filepath.Dir(base), 2<<20)
	pack, err2 := safefile.Read(context.Background(), base+".pack", filepath.Dir(base), smallPackBytes)
	if err1 != nil || err2 != nil || len(pack) < 32 || string(pack[:4]) != "PACK" ||
		binary.BigEndian.Uint32(pack[4:]) != 2 || len(idx) < 8+1024 ||
		!bytes.Equal(idx[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return false
	}
	n := int(binary.BigEndian.Uint32(idx[8+255*4:]))
	if n != int(binary.BigEndian.Uint32(pack[8:])) || len(idx) != 8+1024+n*28+40 {
		return false // large offsets, or not the index of this pack
	}
	type ent struct {
		oid [20]byte
		crc uint32
		off int
	}
	ents := make([]ent, n)
	oids, crcs, offs := idx[8+1024:], idx[8+1024+n*20:], idx[8+1024+n*24:]
	for i := range ents {
		copy(ents[i].oid[:], oids[i*20:])
		ents[i].crc = binary.BigEndian.Uint32(crcs[i*4:])
		ents[i].off = int(binary.BigEndian.Uint32(offs[i*4:]))
	}
	slices.SortFunc(ents, func(a, b ent) int { return a.off - b.off })
	end := len(pack) - 20
	raws := make([][]byte, n)
	for i, e := range ents {
		next := end
		if i+1 < n {
			next = ents[i+1].off
		}
		if e.off < 12 || next <= e.off || next > end {
			return false
		}
		raw := pack[e.off:next]
		if t := raw[0] >> 4 & 7; t < 1 || t > 4 || crc32.ChecksumIEEE(raw) != e.crc {
			return false // a delta (a pack git wrote), or damaged
		}
		raws[i] = raw
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, e := range ents {
		if p.err != nil || p.seen.has(p.ents, e.oid) {
			continue
		}
		if err := p.write(raws[i]); err != nil {
			p.err = err
			break
		}
		p.ents = append(p.ents, packEntry{oid: e.oid, off: p.off, crc: e.crc})
		p.seen.add(p.ents, len(p.ents)-1)
		p.off += uint64(len(raws[i]))
	}
	return p.err == nil
}

// dropMerged removes the packs p took in, once p is finished: the index
// first, so that git no longer looks in the pack it removes next.
func (p *packWriter) dropMerged() {
	for _, base := range p.merged {
		if dropHook != nil {
			dropHook()
		}
		os.Remove(base + ".idx")
		os.Remove(base + ".pack")
		os.Remove(base + ".rev")
	}
}

// dropHook, when set, runs before each merged pack is removed (tests: a
// kill in the middle).
var dropHook func()
