package snapshot

import (
	"os"
	"slices"
	"sync"
)

// A snapshot of a tree that has not changed is the previous snapshot: the
// walk (walk.go) shows nothing to add, and when the index is exactly as
// this Store left it after its last snapshot, writing a commit and a ref
// again would only name the same tree. A step that runs `true` then costs
// one walk per snapshot. So does one whose files were hashed again and
// found the same (racily clean ones, goindex.go): sameAsLast.
//
// The index check is what makes this safe with two agents in one
// directory: another process that took a snapshot rewrote the index, so
// its file is no longer the one this Store saw, and the full path runs.

// lastTakes holds the newest snapshot a Store took; its methods are safe
// for concurrent use.
type lastTakes struct {
	indexFile string // the store's index
	mu        sync.Mutex
	last      *lastTake
}

// forget drops the newest snapshot: the next take runs in full.
func (r *lastTakes) forget() {
	r.mu.Lock()
	r.last = nil
	r.mu.Unlock()
}

// lastTake is the newest snapshot a Store took, with what it needs to know
// that nothing has changed since.
type lastTake struct {
	session string
	snap    Snapshot
	removed []string    // the skipped paths the walk listed then
	modes   string      // the modes text then
	index   os.FileInfo // the index file right after
}

// remember records snap as the newest snapshot of session.
func (r *lastTakes) remember(session string, snap Snapshot, removed []string, modes string) {
	fi, err := os.Stat(r.indexFile)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.last = nil
		return
	}
	r.last = &lastTake{session: session, snap: snap, removed: slices.Clone(removed), modes: modes, index: fi}
}

// reusable returns the newest snapshot when a walk that found nothing to
// add (and removed, the paths it skips; modes, the files' modes) shows the
// tree unchanged since: the same session, the same skipped paths and
// modes, and the index untouched.
func (r *lastTakes) reusable(session string, removed []string, modes string) (Snapshot, bool) {
	r.mu.Lock()
	last := r.last
	r.mu.Unlock()
	if last == nil || last.session != session || !slices.Equal(last.removed, removed) || last.modes != modes {
		return Snapshot{}, false
	}
	fi, err := os.Stat(r.indexFile)
	if err != nil || !os.SameFile(fi, last.index) || !fi.ModTime().Equal(last.index.ModTime()) || fi.Size() != last.index.Size() {
		return Snapshot{}, false
	}
	snap := last.snap
	snap.Skipped = slices.Clone(snap.Skipped)
	return snap, true
}

// sameAsLast returns the newest snapshot when a snapshot that rewrote the
// index (files hashed again, found the same) names the same tree with the
// same skipped paths and modes; the index it wrote becomes the one to
// compare with.
func (r *lastTakes) sameAsLast(session, tree string, removed []string, modes string) (Snapshot, bool) {
	fi, err := os.Stat(r.indexFile)
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.last
	if err != nil || last == nil || last.session != session || last.snap.Tree != tree || !slices.Equal(last.removed, removed) || last.modes != modes {
		return Snapshot{}, false
	}
	last.index = fi
	snap := last.snap
	snap.Skipped = slices.Clone(snap.Skipped)
	return snap, true
}
