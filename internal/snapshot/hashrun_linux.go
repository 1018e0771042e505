//go:build linux

package snapshot

// hashrun_linux.go: a first snapshot's files opened relative to their
// directory (issue 26: outside git, the first snapshot at the cost of
// `tar c`; an open by the absolute path looked up every component of it
// again, a file). Contract: hashAll hands its hashers runs of paths
// (pathRuns: consecutive paths of one directory, at most runMax); for a
// first snapshot's packs (blobPut.file) each run's directory is opened
// once, beneath the work tree without following any link (openat2
// RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH; where the kernel has no openat2,
// one openat O_NOFOLLOW a component), and each of its files is opened,
// lstat'ed and read relative to it (fileAt), O_NOFOLLOW as before. A
// directory that is gone, or is no longer a directory, or is reached
// only through a symlink since the walk listed it, has its paths gone:
// no link is followed to store a file outside the tree (an open by the
// whole path followed a symlink put in place of a directory). A
// directory that cannot be opened for another reason (permissions,
// descriptors) leaves its paths to the open by the whole path, as
// before. A run's directory is closed when the run is done: at most
// hashers directories are open at once.

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runMax is the most paths of a run: runs of a large directory are
// shared among the hashers.
const runMax = 32

// pathRuns splits paths into runs of one directory: the end of each run
// (each path a run of its own when perDir is false).
func pathRuns(paths []string, perDir bool) []int {
	ends := make([]int, 0, len(paths)/8+1)
	for i := range paths {
		if i+1 == len(paths) || !perDir {
			ends = append(ends, i+1)
			continue
		}
		start := 0
		if len(ends) > 0 {
			start = ends[len(ends)-1]
		}
		if i+1-start >= runMax || dirOf(paths[i]) != dirOf(paths[i+1]) {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// dirOf is the directory of the slash-separated path p ("" at the top).
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// fileAt names a file: name in the open directory fd, or the path name
// when fd is -1.
type fileAt struct {
	fd   int
	name string
}

// open opens the file (openat when in a directory).
func (f fileAt) open(flags int) (int, error) {
	for {
		var fd int
		var err error
		if f.fd < 0 {
			fd, err = syscall.Open(f.name, flags, 0)
		} else {
			fd, err = syscall.Openat(f.fd, f.name, flags, 0)
		}
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// lstat lstats the file (fstatat on every architecture: lstatAt's is
// amd64's alone).
func (f fileAt) lstat(st *syscall.Stat_t) error {
	if f.fd < 0 {
		return syscall.Lstat(f.name, st)
	}
	// The same kernel struct stat, generated for each architecture.
	return unix.Fstatat(f.fd, f.name, (*unix.Stat_t)(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW)
}

// readlink reads the symlink's target.
func (f fileAt) readlink() (string, error) {
	if f.fd < 0 {
		return os.Readlink(f.name)
	}
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(f.fd, f.name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// runDirs opens the runs' directories beneath the work tree, open as
// root (-1: it could not be; every path is opened by its whole path).
type runDirs struct {
	root int
	work string
}

func openRunDirs(work string) *runDirs {
	fd, err := syscall.Open(work, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	return &runDirs{root: fd, work: work}
}

func (r *runDirs) close() {
	if r.root >= 0 {
		syscall.Close(r.root)
	}
}

// errRunGone: the run's directory is gone, or not a directory reached
// without a link: its paths are gone.
var errRunGone = errors.New("directory gone")

// open opens dir ("" the work tree) for a run: its descriptor (the
// root's for ""; close with done), -1 when the paths are to be opened by
// their whole path, or errRunGone.
func (r *runDirs) open(dir string) (int, error) {
	if r.root < 0 {
		return -1, nil
	}
	if dir == "" {
		return r.root, nil
	}
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	how := unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH}
	for {
		fd, err := unix.Openat2(r.root, dir, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOENT, unix.ENOTDIR, unix.ELOOP, unix.EXDEV:
			return -1, errRunGone
		case unix.ENOSYS, unix.EPERM, unix.EINVAL, unix.E2BIG: // no openat2 here (or a filter refuses it)
			return r.openEach(dir)
		}
		return -1, nil
	}
}

// openEach opens dir a component at a time, O_NOFOLLOW each.
func (r *runDirs) openEach(dir string) (int, error) {
	cur := r.root
	for comp := range strings.SplitSeq(dir, "/") {
		next, err := fileAt{cur, comp}.open(syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC)
		if cur != r.root {
			syscall.Close(cur)
		}
		switch err {
		case nil:
			cur = next
		case syscall.ENOENT, syscall.ENOTDIR, syscall.ELOOP:
			return -1, errRunGone
		default:
			return -1, nil
		}
	}
	return cur, nil
}

// done closes a run's directory.
func (r *runDirs) done(fd int) {
	if fd >= 0 && fd != r.root {
		syscall.Close(fd)
	}
}

// baseOf is the last component of the slash-separated path p.
func baseOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
