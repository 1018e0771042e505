//go:build linux || darwin

package gitcmd

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// discoverGitDir finds the repository git would find from dir
// (setup_git_directory_gently_1, with no GIT_DIR, GIT_CEILING_DIRECTORIES
// or GIT_DISCOVERY_ACROSS_FILESYSTEM): in each directory from dir up, a
// .git that is a git directory, else the directory itself if it is one
// (bare). It returns that .git directory, "" when there is none up to the
// root, or ok false when git could decide otherwise than this function
// is sure of: a .git file (a worktree, a submodule), a .git directory
// that does not look valid for certain, a directory that may itself be a
// repository (it has a HEAD), a file system boundary, a stat that fails.
func discoverGitDir(dir string) (gitDir string, ok bool) {
	// git starts from getcwd(): the physical path.
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return "", false
	}
	dev, ok := device(d)
	if !ok {
		return "", false
	}
	for {
		dotGit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotGit)
		switch {
		case err == nil && fi.IsDir():
			if !isGitDir(dotGit) {
				return "", false // git may pass over it and go on up
			}
			return dotGit, true
		case err == nil: // a gitfile, or something git would refuse
			return "", false
		case !errors.Is(err, fs.ErrNotExist):
			return "", false
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); !errors.Is(err, fs.ErrNotExist) {
			return "", false // perhaps a bare repository
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", true
		}
		if pdev, ok := device(parent); !ok || pdev != dev {
			return "", false
		}
		d = parent
	}
}

// isGitDir reports whether git's is_git_directory accepts path for
// certain: a regular HEAD it validates, searchable objects and refs
// directories, and no commondir file (a linked worktree's).
func isGitDir(path string) bool {
	if _, err := os.Lstat(filepath.Join(path, "commondir")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	head := filepath.Join(path, "HEAD")
	fi, err := os.Lstat(head)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	// Non-blocking, not following a link: a FIFO or link swapped in
	// since the Lstat blocks nothing (safefile's rules).
	f, err := os.OpenFile(head, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	buf := make([]byte, 255)
	n, err := io.ReadFull(f, buf)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false
	}
	if !validHead(buf[:n]) {
		return false
	}
	const xOK = 1
	return syscall.Access(filepath.Join(path, "objects"), xOK) == nil &&
		syscall.Access(filepath.Join(path, "refs"), xOK) == nil
}

func device(path string) (uint64, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}
