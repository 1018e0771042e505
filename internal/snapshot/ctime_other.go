//go:build !linux

package snapshot

import (
	"os"
	"time"
)

// changeTime is fi's modification time (the ctime is read on Linux only).
func changeTime(fi os.FileInfo) time.Time { return fi.ModTime() }
