package tools

// How the tools open files. Two promises:
//
//   - Opening never blocks on something that is not a regular file. A FIFO
//     opened for reading blocks until a writer comes, a device may block
//     forever: files are opened with O_NONBLOCK and checked with fstat, and
//     anything but a regular file is refused with errNotRegular (a Stat
//     before the open says so without opening at all; the fstat closes the
//     race with a file swapped in between).
//   - write and edit change the file the permission check saw. The path is
//     resolved again (every symlink followed, dangling ones included), the
//     resolved path is opened without following a final symlink
//     (O_NOFOLLOW), and the opened file must be the one now at the resolved
//     path; a symlink swapped in between makes the write fail instead of
//     landing elsewhere.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ctxloop/agent/internal/safefile"
)

// errNotRegular is wrapped by the errors for FIFOs, devices, sockets and
// directories met where a regular file was expected.
var errNotRegular = errors.New("not a regular file")

func notRegular(info fs.FileInfo) error {
	return fmt.Errorf("%w (%s)", errNotRegular, safefile.Kind(info.Mode()))
}

// openRegular opens path (following symlinks) for reading, refusing
// anything but a regular file without blocking on it. info is the opened
// file's.
func openRegular(path string) (f *os.File, info fs.FileInfo, err error) {
	if info, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !info.Mode().IsRegular() {
		return nil, info, notRegular(info)
	}
	f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, info, notRegular(info)
	}
	return f, info, nil
}

// readRegular reads a whole regular file (see openRegular).
func readRegular(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// errPathChanged is returned when the file opened for writing is not the
// one at the resolved path: a symlink was swapped in while writing.
var errPathChanged = errors.New("the path changed while it was being written (a symbolic link was replaced); nothing was written")

// writeResolved writes content to real, the resolved path of a file (see
// resolveLinks), creating it with mode 0644 (an existing file keeps its
// mode) and its parent directories. The final component is opened without
// following a symlink, and the opened file is checked to be the one at
// real before anything is written.
func writeResolved(real, content string) error {
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(real, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return errPathChanged
		}
		return err
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if !opened.Mode().IsRegular() {
		f.Close()
		return notRegular(opened)
	}
	// The directories above real may have been swapped for links between
	// resolving and opening: real must still be free of links, and what is
	// at real now must be what was opened. (A swap undone within this
	// window goes unseen; so does the empty file such a race may create.)
	if r, err := resolveLinks(real); err != nil || r != real {
		f.Close()
		return errPathChanged
	}
	if now, err := os.Lstat(real); err != nil || !os.SameFile(opened, now) {
		f.Close()
		return errPathChanged
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
