package procguard

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ctxloop/agent/internal/secrets"
)

// Harden closes the running process to its children (see the package
// comment).
func Harden() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The bounding set is a thread's. Without cgo every thread of the
	// runtime drops it (the threads started later are cloned from these);
	// with cgo the runtime cannot, and the threads that start children
	// drop it for themselves (DropPtraceForChildren).
	if _, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0); errno != 0 {
		DropPtraceForChildren()
	}
	if secretInEnviron() {
		_ = scrubInitialEnviron(secrets.Names)
	}
}

// secretInEnviron reports whether a variable of secrets.Names is set: the
// common case of a local server without a key reads no /proc file.
func secretInEnviron() bool {
	for _, n := range secrets.Names {
		if _, ok := os.LookupEnv(n); ok {
			return true
		}
	}
	return false
}

// scrubInitialEnviron overwrites with '*' the values of the variables in
// names in the process's initial environment block. It uses the system
// calls directly: on the start-up path, os.File's set-up costs more than
// the work.
func scrubInitialEnviron(names []string) error {
	block, err := readProcFile("/proc/self/environ", 16<<10)
	if err != nil {
		return err
	}
	stat, err := readProcFile("/proc/self/stat", 1<<10)
	if err != nil {
		return err
	}
	start, ok := envStart(stat)
	if !ok {
		return nil
	}
	mem := -1
	defer func() {
		if mem >= 0 {
			unix.Close(mem)
		}
	}()
	off := 0
	for _, kv := range bytes.Split(block, []byte{0}) {
		for _, n := range names {
			if len(kv) > len(n)+1 && bytes.HasPrefix(kv, []byte(n+"=")) {
				if mem < 0 {
					if mem, err = unix.Open("/proc/self/mem", unix.O_WRONLY|unix.O_CLOEXEC, 0); err != nil {
						return err
					}
				}
				at := int64(start) + int64(off+len(n)+1)
				if _, err := unix.Pwrite(mem, bytes.Repeat([]byte{'*'}, len(kv)-len(n)-1), at); err != nil {
					return err
				}
			}
		}
		off += len(kv) + 1
	}
	return nil
}

// readProcFile reads a /proc file whole, starting with a buffer of size
// bytes.
func readProcFile(path string, size int) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// envStart reads env_start (field 50) of a /proc/self/stat line.
func envStart(b []byte) (uint64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	// The fields after the command name start at field 3.
	f := bytes.Fields(b[i+1:])
	if len(f) < 49 {
		return 0, false
	}
	s, err := strconv.ParseUint(string(f[47]), 10, 64)
	return s, err == nil && s > 0
}

// DropPtraceForChildren drops CAP_SYS_PTRACE from the calling thread's
// bounding set, for what the thread forks from now on. Call it on a
// thread locked with runtime.LockOSThread right before starting a child:
// Harden reaches every thread only in a build without cgo.
func DropPtraceForChildren() {
	_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0)
}
