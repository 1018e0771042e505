package initpages

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Release drops the executable's resident read-only pages (see the
// package comment). Call it once, first thing in main.
func Release() {
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &exe); err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for _, m := range readOnlyMappingsOf(maps, uint64(exe.Dev), exe.Ino) {
		// The raw call: the range is an address the kernel gave, not
		// memory this program reads through a pointer.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.lo, m.hi-m.lo, unix.MADV_DONTNEED)
	}
}

// mapping is an address range of /proc/self/maps.
type mapping struct{ lo, hi uintptr }

// readOnlyMappingsOf returns the mappings in maps (the text of
// /proc/self/maps) of the file with device dev and inode ino that are
// private and not writable ("r-xp", "r--p").
//
//	00400000-00e83000 r-xp 00000000 fe:00 12296354    /path/to/agent
func readOnlyMappingsOf(maps []byte, dev, ino uint64) []mapping {
	var out []mapping
	for line := range bytes.Lines(maps) {
		f := bytes.Fields(line)
		if len(f) < 6 {
			continue
		}
		perms := string(f[1])
		if perms != "r-xp" && perms != "r--p" {
			continue
		}
		if n, err := strconv.ParseUint(string(f[4]), 10, 64); err != nil || n != ino {
			continue
		}
		major, minor, ok := bytes.Cut(f[3], []byte(":"))
		if !ok {
			continue
		}
		ma, err1 := strconv.ParseUint(string(major), 16, 32)
		mi, err2 := strconv.ParseUint(string(minor), 16, 32)
		if err1 != nil || err2 != nil || unix.Mkdev(uint32(ma), uint32(mi)) != dev {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		if !ok {
			continue
		}
		l, err1 := strconv.ParseUint(string(lo), 16, 64)
		h, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || h <= l {
			continue
		}
		out = append(out, mapping{uintptr(l), uintptr(h)})
	}
	return out
}
