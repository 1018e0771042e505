package snapshot

// permlog.go: a first snapshot's modes noted as its files are read. take
// leaves a late-classified first snapshot's modes to goPath.update
// (fullstore.go): hashOpened and hashPath note in a permLog the permission
// bits of each regular file they store, when they are not git's canonical
// ones (oddPerm's, modes.go), and take makes the modes text from it
// without an lstat of each file again.

import "sync"

// permLog is the odd permission bits (oddPerm's) of the regular files
// hashOpened and hashPath stored.
type permLog struct {
	mu  sync.Mutex
	odd map[string]uint32
}

// note records the bits of mode (a regular file's) for p when they are
// not git's canonical ones.
func (l *permLog) note(p string, mode uint32) {
	perm := mode & 0o7777
	if gitPerm(perm) { // modes.go
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.odd == nil {
		l.odd = map[string]uint32{}
	}
	l.odd[p] = perm
}

// text is the modes text of m (the index's odd modes) with l's added and
// remove's left out.
func (l *permLog) text(m map[string]uint32, remove []string) string {
	for p, perm := range l.odd {
		m[p] = perm
	}
	for _, p := range remove {
		delete(m, p)
	}
	return modesText(m)
}
