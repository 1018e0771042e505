package snapshot

import (
	"os"
	"syscall"
	"time"
)

// changeTime is fi's ctime: the kernel's stamp of the last change to the
// file's content or metadata, which no tool can set back.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
