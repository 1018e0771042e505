//go:build !linux

package gitcmd

import "os"

// inodeAndCtime is not read here: fileState then compares kind, size and
// modification time only.
func inodeAndCtime(fi os.FileInfo) (uint64, int64) { return 0, 0 }
