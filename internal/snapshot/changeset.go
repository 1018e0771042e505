//go:build linux

package snapshot

// changeset.go: the changed paths of goPath.update (goindex.go) and their
// new entries. Contract: newChangeSet holds update and remove sorted in
// the index's order, each path once, every record "gone" until hashAll
// writes an update path's result in its place (an update path listed in
// remove too is what hashAll finds); at finds a path's record. The
// records are one slice of values, not a map of pointers, each what the
// index needs but the path (paths[i]): at 100,000 paths (a first
// snapshot) a record costs 61 bytes, not ≈ 250. The set holds update
// itself when it is already in that order and remove is empty (it is
// not changed, and update must not be while the set is used).

import (
	"slices"
	"strings"
)

type changeSet struct {
	paths []string    // sorted, each once
	vals  []changeRec // vals[i] is paths[i]'s
}

// changeRec is a change without its path.
type changeRec struct {
	stat [40]byte
	oid  [20]byte
	gone bool
}

func (r *changeRec) set(c *change) { r.stat, r.oid, r.gone = c.e.stat, c.e.oid, c.gone }

// entry is paths[i]'s new index entry.
func (s *changeSet) entry(i int) indexEntry {
	return indexEntry{stat: s.vals[i].stat, oid: s.vals[i].oid, path: s.paths[i]}
}

func newChangeSet(update, remove []string) *changeSet {
	var paths []string
	if len(remove) == 0 && strictlySorted(update) {
		paths = update // a first snapshot's, as the walk lists them: not copied (100,000 paths: 1.6 MB)
	} else {
		paths = make([]string, 0, len(update)+len(remove))
		paths = append(append(paths, update...), remove...)
		slices.Sort(paths) // update is sorted as the walk lists it: a sort of a sorted run costs a pass
		paths = slices.Compact(paths)
	}
	s := &changeSet{paths: paths, vals: make([]changeRec, len(paths))}
	for i := range s.vals {
		s.vals[i].gone = true
	}
	return s
}

// at is p's record; nil when p is not one of the set's paths.
func (s *changeSet) at(p string) *changeRec {
	i, ok := slices.BinarySearchFunc(s.paths, p, strings.Compare)
	if !ok {
		return nil
	}
	return &s.vals[i]
}

// strictlySorted reports whether ps is in increasing order, each once.
func strictlySorted(ps []string) bool {
	for i := 1; i < len(ps); i++ {
		if ps[i-1] >= ps[i] {
			return false
		}
	}
	return true
}
