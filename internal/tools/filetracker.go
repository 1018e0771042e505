package tools

import (
	"io/fs"
	"sync"
	"time"
)

// FileTracker remembers, for one session, the modification time and size
// of each file when the agent last read or wrote it, so that edit and write
// refuse to clobber a file changed on disk since (by the user, a formatter,
// another process). Its zero value is ready to use; it is safe for
// concurrent use. Paths are keyed after resolving symlinks.
type FileTracker struct {
	mu    sync.Mutex
	files map[string]fileStamp
}

type fileStamp struct {
	modTime time.Time
	size    int64
	at      time.Time // when the agent saw it
}

// NewFileTracker returns an empty tracker.
func NewFileTracker() *FileTracker { return &FileTracker{} }

// Record notes that the agent has seen the file at path in the state info
// describes (after a read, or after its own write).
func (t *FileTracker) Record(path string, info fs.FileInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.files == nil {
		t.files = map[string]fileStamp{}
	}
	t.files[resolvePath(path)] = fileStamp{modTime: info.ModTime(), size: info.Size(), at: time.Now()}
}

// Forget drops what is known about path.
func (t *FileTracker) Forget(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, resolvePath(path))
}

// freshness is what the tracker knows of a file compared with its state on
// disk.
type freshness int

const (
	fileNotRead freshness = iota // never read (or written) by the agent
	fileStale                    // changed on disk since the agent last saw it
	fileFresh                    // unchanged since the agent last saw it
)

// check compares the file's current state (info) with the last one seen,
// and returns when the agent saw it.
func (t *FileTracker) check(path string, info fs.FileInfo) (freshness, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.files[resolvePath(path)]
	if !ok {
		return fileNotRead, time.Time{}
	}
	if !st.modTime.Equal(info.ModTime()) || st.size != info.Size() {
		return fileStale, st.at
	}
	return fileFresh, st.at
}
