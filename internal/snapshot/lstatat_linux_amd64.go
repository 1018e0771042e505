package snapshot

import (
	"path/filepath"
	"syscall"
	"unsafe"
)

// lstatAt lstats name in the open directory d (fstatat: no lookup of the
// directory's path per file), or dir/name when d is -1.
func lstatAt(d int, dir, name string, st *syscall.Stat_t) error {
	if d < 0 {
		return syscall.Lstat(filepath.Join(dir, name), st)
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	const atSymlinkNofollow = 0x100
	_, _, e := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(d), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), atSymlinkNofollow, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
