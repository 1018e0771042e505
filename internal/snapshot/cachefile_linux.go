package snapshot

// cachefile_linux.go: writing a file the store only caches in, whose
// reader checks it whole (agent-dircache: a CRC at its end; one that does
// not read back is ignored). Contract: writeCacheFile leaves at path
// either data or nothing; it writes in place, without a temporary file
// and a rename (two metadata operations fewer on a journaled file
// system), when path is missing or the store's own regular file with a
// single link; anything else there (a symlink, a FIFO, a hard link to
// another file) is replaced through a temporary file and a rename, never
// written through. A write that fails, or a crash mid-write, leaves a
// file its reader ignores; a failed write removes it.

import (
	"os"
	"path/filepath"
	"syscall"
)

func writeCacheFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return replaceCacheFile(path, data)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink != 1 {
		f.Close()
		return replaceCacheFile(path, data)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// replaceCacheFile writes data through a temporary file renamed over
// whatever is at path (objwrite.go's writeReplace).
func replaceCacheFile(path string, data []byte) error {
	return writeReplace(filepath.Dir(path), path, data, 0o600)
}
