//go:build !linux

package snapshot

// dircache_other.go: no untracked cache where the Go walk does not run
// (walkstat_other.go); the walk reads every directory.

type dirCache struct{}

func newDirCache(string) *dirCache { return nil }

func (c *dirCache) begin(string) {}
func (c *dirCache) end(bool)     {}

func (c *dirCache) list(_, abs string) ([]dirent, error) { return readDirents(abs) }
