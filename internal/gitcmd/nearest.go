package gitcmd

import (
	"os"
	"path/filepath"
)

// NearestRoot returns the nearest directory from dir up that holds a
// .git (a directory, or a worktree's or submodule's file): the
// repository's root as the agent's own lookups take it (AGENTS.md files,
// project skills, a project's memories). It runs no git and asks nothing
// of the .git it finds; discoverGitDir is git's exact discovery.
func NearestRoot(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}
