package snapshot

import (
	"crypto/sha1"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// The set answers as a map of the ids added, through its growth, for ids
// that collide in the bytes it slots by (the first 8) and ids never added.
func TestOIDSetIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ents []packEntry
	var set oidSet
	want := map[[20]byte]bool{}
	for i := range 50_000 {
		var oid [20]byte
		if i%5 == 0 && i > 0 { // the first 8 bytes of an earlier id: a probe chain
			oid = ents[r.IntN(len(ents))].oid
			binary.LittleEndian.PutUint64(oid[8:], r.Uint64())
		} else {
			oid = sha1.Sum(binary.LittleEndian.AppendUint64(nil, r.Uint64()))
		}
		if want[oid] {
			continue
		}
		if set.has(ents, oid) {
			t.Fatalf("%x: present before it was added (%d added)", oid, len(ents))
		}
		ents = append(ents, packEntry{oid: oid})
		set.add(ents, len(ents)-1)
		want[oid] = true
		if i%997 == 0 { // every id so far, and some never added
			for o := range want {
				if !set.has(ents, o) {
					t.Fatalf("%x added, not found (%d added)", o, len(ents))
				}
			}
			absent := sha1.Sum([]byte{byte(i), byte(i >> 8), 0xff})
			if !want[absent] && set.has(ents, absent) {
				t.Fatalf("%x never added, found", absent)
			}
		}
	}
	if set.n != len(want) || 2*set.n > len(set.slots) {
		t.Fatalf("%d in the set of %d slots, %d added", set.n, len(set.slots), len(want))
	}
}
