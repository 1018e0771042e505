//go:build !linux

package snapshot

// walkdir_other.go: no Go walk here (walkstat_other.go); the directory
// handles of walkdir_linux.go are never opened.

type dirFD struct{ fd int }

func openDirAt(*dirFD, string, string) *dirFD { return nil }

func (d *dirFD) hold() *dirFD { return d }

func (d *dirFD) release() {}

func (d *dirFD) entries(abs string) ([]dirent, error) { return readDirents(abs) }
