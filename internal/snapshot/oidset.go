package snapshot

// oidset.go: a pack's set of the objects it holds, by their index in its
// entries: 4 bytes a slot, at most half full (≈ 8–16 bytes an object),
// where a map[[20]byte]bool costs ≈ 40–60 (a first snapshot of 100,000
// files holds one entry a file). Contract: has reports whether an entry
// of ents has oid; add(ents, i) adds ents[i], which is not yet in it.

import "encoding/binary"

type oidSet struct {
	slots []int32 // an index into the entries + 1; 0: empty
	n     int
}

func (s *oidSet) slot(oid *[20]byte) int {
	// An object id is a hash already: its first bytes spread evenly.
	return int(binary.LittleEndian.Uint64(oid[:8]) & uint64(len(s.slots)-1))
}

func (s *oidSet) has(ents []packEntry, oid [20]byte) bool {
	if len(s.slots) == 0 {
		return false
	}
	for i := s.slot(&oid); ; i = (i + 1) & (len(s.slots) - 1) {
		switch j := s.slots[i]; {
		case j == 0:
			return false
		case ents[j-1].oid == oid:
			return true
		}
	}
}

func (s *oidSet) add(ents []packEntry, i int) {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]int32, max(64, 2*len(old)))
		for _, j := range old {
			if j != 0 {
				s.insert(ents, j)
			}
		}
	}
	s.insert(ents, int32(i+1))
	s.n++
}

func (s *oidSet) insert(ents []packEntry, j int32) {
	i := s.slot(&ents[j-1].oid)
	for s.slots[i] != 0 {
		i = (i + 1) & (len(s.slots) - 1)
	}
	s.slots[i] = j
}
