//go:build !linux

package snapshot

// dircache_other.go: no untracked cache where the Go walk does not run
// (walkstat_other.go); the walk reads every directory.

import (
	"sync/atomic"
	"time"
)

// dirCacheHits counts the listings answered from the cache (tests): none.
var dirCacheHits atomic.Int64

// dirCacheNow is the cache's clock (tests move it): unused here.
var dirCacheNow = time.Now

type dirCache struct{}

func newDirCache(string) *dirCache { return nil }

func (c *dirCache) begin(string) {}
func (c *dirCache) end(bool)     {}

func (c *dirCache) list(_, abs string, d *dirFD) ([]dirent, error) { return d.entries(abs) }
