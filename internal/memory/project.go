package memory

// project.go: which directory a memory belongs to. A project is its
// repository (the nearest directory from the session's up with a .git, a
// directory or a worktree's file), as the prompt's AGENTS.md lookup has
// it; outside a repository, the session's directory alone. remember keeps
// a fact for the project, so a session started in any of its
// subdirectories finds it; a session sees its project's memories, those
// kept for a directory between it and the project's root (by hand, or
// before memories were kept per repository), and the user's. Another
// repository, even one inside this one's tree, is another project.

import (
	"path/filepath"

	"github.com/ctxloop/agent/internal/gitcmd"
	"github.com/ctxloop/agent/internal/storage"
)

// Project is the scope of the memories kept by a session in dir: the
// repository's root, or dir outside a repository.
func Project(dir string) string {
	root, _ := projectDirs(dir)
	return root
}

// Scopes are the scopes a session in dir sees: dir, its parents up to
// the project's root, then the user's.
func Scopes(dir string) []string {
	_, dirs := projectDirs(dir)
	return append(dirs, storage.ScopeUser)
}

// projectDirs are dir and its parents up to the project's root (the
// last of them), and that root.
func projectDirs(dir string) (string, []string) {
	dir = filepath.Clean(dir)
	root, ok := gitcmd.NearestRoot(dir)
	if !ok {
		return dir, []string{dir} // not in a repository: dir alone
	}
	dirs := []string{dir}
	for d := dir; d != root; {
		d = filepath.Dir(d)
		dirs = append(dirs, d)
	}
	return root, dirs
}
