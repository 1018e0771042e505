package mention

import (
	"context"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/tools"
)

// MaxIndexed bounds the paths an Index keeps: a walk stops there.
const MaxIndexed = 500_000

// RefreshInterval is how old the list may get before a lookup starts a
// background refresh.
const RefreshInterval = 10 * time.Second

// Index is the cached list of a directory's files and directories (with a
// trailing "/"), for completion. Lookups never wait for the disk: they read
// the last list, and start a refresh in the background when it is older
// than RefreshInterval (or there is none yet). It is safe for concurrent
// use.
type Index struct {
	root string

	mu         sync.Mutex
	paths      []string
	lower      []string
	builtAt    time.Time
	refreshing bool
	done       chan struct{} // closed when the refresh in flight ends
}

// NewIndex returns an empty index of root; the first lookup starts the
// walk.
func NewIndex(root string) *Index { return &Index{root: root} }

// Paths returns the current list (sorted; directories end with "/") and
// whether a walk has completed. It starts a background refresh when the
// list is missing or stale.
func (x *Index) Paths() ([]string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.refreshing && time.Since(x.builtAt) > RefreshInterval {
		x.startLocked()
	}
	return x.paths, !x.builtAt.IsZero()
}

// Refresh starts a walk unless one runs, and returns a channel closed when
// the walk in flight ends.
func (x *Index) Refresh() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.refreshing {
		x.startLocked()
	}
	return x.done
}

func (x *Index) startLocked() {
	x.refreshing = true
	done := make(chan struct{})
	x.done = done
	go func() {
		defer close(done)
		paths := walk(x.root)
		lower := make([]string, len(paths))
		for i, p := range paths {
			lower[i] = strings.ToLower(p)
		}
		x.mu.Lock()
		x.paths, x.lower, x.builtAt, x.refreshing = paths, lower, time.Now(), false
		x.mu.Unlock()
	}()
}

// walk lists root's files and their directories, sorted.
func walk(root string) []string {
	var paths []string
	dirs := map[string]bool{}
	_ = tools.WalkFiles(context.Background(), root, func(rel string) error {
		if len(paths) >= MaxIndexed {
			return fs.SkipAll
		}
		paths = append(paths, rel)
		for d := path.Dir(rel); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
		return nil
	})
	for d := range dirs {
		paths = append(paths, d+"/")
	}
	sort.Strings(paths)
	return paths
}

// Match returns at most limit paths of the index that fuzzy-match query,
// best first (see Rank). ready is false while no walk has completed yet.
func (x *Index) Match(query string, limit int) (matches []string, ready bool) {
	x.Paths() // starts a refresh if due
	x.mu.Lock()
	paths, lower, ready := x.paths, x.lower, !x.builtAt.IsZero()
	x.mu.Unlock()
	return rank(paths, lower, query, limit), ready
}
