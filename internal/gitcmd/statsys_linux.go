package gitcmd

import (
	"os"
	"syscall"
)

// inodeAndCtime are fi's inode and change time (ns), for fileState.
func inodeAndCtime(fi os.FileInfo) (uint64, int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return 0, 0
}
