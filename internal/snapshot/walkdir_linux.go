//go:build linux

package snapshot

// walkdir_linux.go: the walk's directories (walk.go), each opened once,
// relative to its parent (openat: one name looked up, not the whole
// path again), listed with getdents straight into dirents, and its
// descriptor shared with the statters that fstatat its files: whoever
// lets go of it last closes it. Contract: openDirAt never follows a
// symlink below the work tree's root (O_NOFOLLOW: a directory replaced by
// a link is not entered); dirFD.entries answers what readDirents(abs)
// answers — the entries but ".git", sorted by key, a type for each (an
// lstat where the file system gives none).

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// dirFD is an open directory of the walk.
type dirFD struct {
	fd   int
	refs atomic.Int32
}

// openDirAt opens the directory name in parent, or abs when parent is
// nil (the work tree); nil when it cannot.
func openDirAt(parent *dirFD, name, abs string) *dirFD {
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC
	for {
		var fd int
		var err error
		if parent == nil {
			fd, err = syscall.Open(abs, flags, 0)
		} else {
			fd, err = syscall.Openat(parent.fd, name, flags|syscall.O_NOFOLLOW, 0)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		d := &dirFD{fd: fd}
		d.refs.Store(1)
		return d
	}
}

// hold takes another reference to d (nil: none).
func (d *dirFD) hold() *dirFD {
	if d != nil {
		d.refs.Add(1)
	}
	return d
}

// release lets go of a reference; the last one closes the directory.
func (d *dirFD) release() {
	if d != nil && d.refs.Add(-1) == 0 {
		syscall.Close(d.fd)
	}
}

// stat is fstat of d, or lstat of abs when d is nil.
func (d *dirFD) stat(abs string, st *syscall.Stat_t) error {
	if d == nil {
		return syscall.Lstat(abs, st)
	}
	return syscall.Fstat(d.fd, st)
}

// direntBufs are getdents buffers, one per walk at a time.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// entries lists d as readDirents lists abs (which it does when d is nil).
func (d *dirFD) entries(abs string) ([]dirent, error) {
	if d == nil {
		return readDirents(abs)
	}
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var ents []dirent
	for {
		n, err := syscall.ReadDirent(d.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		if ents == nil {
			ents = make([]dirent, 0, n/24+1) // ≈ 24 bytes a dirent with a short name
		}
		for b := buf[:n]; len(b) > 0; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			if len(b) < 19 {
				return nil, errors.New("short directory entry")
			}
			reclen := int(binary.NativeEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				return nil, errors.New("bad directory entry")
			}
			rec := b[:reclen]
			b = b[reclen:]
			name := rec[19:]
			if i := slices.Index(name, 0); i >= 0 {
				name = name[:i]
			}
			switch string(name) {
			case ".", "..", ".git":
				continue
			}
			typ, ok := direntType(rec[18])
			if !ok {
				var st syscall.Stat_t
				if err := lstatAt(d.fd, abs, string(name), &st); err != nil {
					continue // gone since it was listed
				}
				typ = statType(st.Mode)
			}
			ents = append(ents, newDirent(string(name), typ))
		}
	}
	slices.SortFunc(ents, func(a, b dirent) int { return strings.Compare(a.key, b.key) })
	return ents, nil
}

// direntType is the type a dirent's d_type gives, false when unknown.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// statType is the type of an lstat's mode, as fs.DirEntry.Type says it.
func statType(mode uint32) fs.FileMode {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
