package snapshot

import (
	"encoding/binary"
	"syscall"
)

// statSupported: the Go walk compares stat data here (walk.go).
const statSupported = true

// fileChanged lstats name in the directory d (dir, its path) and compares
// it with its index entry e as git does (walk.go), noting a regular
// file's non-canonical bits in modes.
func fileChanged(d int, dir, name string, e *indexEntry, idxMtime [2]uint32, modes map[string]uint32) bool {
	var st syscall.Stat_t
	if err := lstatAt(d, dir, name, &st); err != nil {
		return true
	}
	path := e.path
	mode := e.mode()
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		if mode != 0o100644 && mode != 0o100755 {
			return true
		}
		if perm := st.Mode & 0o7777; !gitPerm(perm) {
			modes[path] = perm
		}
		if (mode^st.Mode)&0o100 != 0 {
			return true
		}
	case syscall.S_IFLNK:
		if mode != 0o120000 {
			return true
		}
	default:
		return true
	}
	be := binary.BigEndian
	ctS, ctN := be.Uint32(e.stat[0:]), be.Uint32(e.stat[4:])
	mtS, mtN := be.Uint32(e.stat[8:]), be.Uint32(e.stat[12:])
	// Nanoseconds only when the entry has them (a git built without
	// USE_NSEC writes 0).
	if mtS != uint32(st.Mtim.Sec) || mtN != 0 && mtN != uint32(st.Mtim.Nsec) ||
		ctS != uint32(st.Ctim.Sec) || ctN != 0 && ctN != uint32(st.Ctim.Nsec) ||
		be.Uint32(e.stat[20:]) != uint32(st.Ino) ||
		be.Uint32(e.stat[28:]) != st.Uid || be.Uint32(e.stat[32:]) != st.Gid ||
		e.size() != uint32(st.Size) || sizeCleared(e) {
		return true
	}
	return racy(e, idxMtime)
}

// fillStat sets e's stat data from st as git records it (32 bits each).
func fillStat(e *indexEntry, st *syscall.Stat_t, mode, size uint32) {
	be := binary.BigEndian
	be.PutUint32(e.stat[0:], uint32(st.Ctim.Sec))
	be.PutUint32(e.stat[4:], uint32(st.Ctim.Nsec))
	be.PutUint32(e.stat[8:], uint32(st.Mtim.Sec))
	be.PutUint32(e.stat[12:], uint32(st.Mtim.Nsec))
	be.PutUint32(e.stat[16:], uint32(st.Dev))
	be.PutUint32(e.stat[20:], uint32(st.Ino))
	be.PutUint32(e.stat[24:], mode)
	be.PutUint32(e.stat[28:], st.Uid)
	be.PutUint32(e.stat[32:], st.Gid)
	be.PutUint32(e.stat[36:], size)
}

// openDir opens dir for lstatAt (-1: not opened, lstatAt then uses the
// whole path).
func openDir(dir string) int {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeDir(d int) {
	if d >= 0 {
		syscall.Close(d)
	}
}
