//go:build linux && !amd64

package snapshot

import (
	"path/filepath"
	"syscall"
)

// lstatAt lstats dir/name (the directory d is not used here).
func lstatAt(_ int, dir, name string, st *syscall.Stat_t) error {
	return syscall.Lstat(filepath.Join(dir, name), st)
}
