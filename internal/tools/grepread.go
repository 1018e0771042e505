package tools

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// How grep reads the files of a walk: with the fewest system calls that
// keep open.go's promises. The walk has already seen a regular file, so
// there is no stat before the open: the file is opened without following
// a symlink (a link swapped in is not followed, as the walk would not)
// and without blocking (a FIFO swapped in does not hang), fstat'd once and
// refused unless regular, read through the worker's buffer and closed.
// A read that returns the size fstat gave ends the file without asking
// for an end-of-file read: what is appended after the fstat is not
// searched.

// atFDCWD makes grepFD.open take its path as it is.
const atFDCWD = unix.AT_FDCWD

// openGrepRoot opens the root directory of a walk for grepFD.open, or
// returns atFDCWD when it cannot (paths are then opened whole); close
// what it returns with closeGrepRoot.
func openGrepRoot(root string) int {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return atFDCWD
	}
	return fd
}

func closeGrepRoot(fd int) {
	if fd != atFDCWD {
		syscall.Close(fd)
	}
}

// grepFD is one opened file of a walk.
type grepFD struct {
	fd   int
	left int64 // bytes to the size fstat gave; < 0 when unknown (size 0)
}

// open opens a file the walk reported as regular into f (a worker's, so
// that no file allocates); errNotRegular when it no longer is. path is
// relative to the directory dir (the search's root, opened once: the
// kernel then resolves only the components below it), or absolute with
// dir atFDCWD.
func (f *grepFD) open(dir int, path string) error {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(dir, path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return errNotRegular
	}
	f.fd, f.left = fd, st.Size
	if f.left == 0 {
		f.left = -1 // /proc and the like say 0 and have content
	}
	return nil
}

// Read reads from the file; io.EOF at its end or at fstat's size.
func (f *grepFD) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		if f.left > 0 {
			f.left = max(f.left-int64(n), 0)
		}
		return n, nil
	}
}

// Close closes the file.
func (f *grepFD) Close() error { return syscall.Close(f.fd) }
