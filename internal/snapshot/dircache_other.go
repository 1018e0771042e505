//go:build !linux

package snapshot

// dircache_other.go: no untracked cache where the Go walk does not run
// (walkstat_other.go); the walk reads every directory.

import "sync/atomic"

// dirCacheHits counts the listings answered from the cache (tests): none.
var dirCacheHits atomic.Int64

type dirCache struct{}

func newDirCache(string) *dirCache { return nil }

func (c *dirCache) begin(string) {}
func (c *dirCache) end(bool)     {}

func (c *dirCache) list(_, abs string) ([]dirent, error) { return readDirents(abs) }
