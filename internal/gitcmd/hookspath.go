package gitcmd

// hookspath.go: where the user's own git runs a repository's hooks from,
// read from the configuration files without a git process (the agent's
// git runs with core.hooksPath=/dev/null, so asking it would say nothing
// of what the user's git does). The answer decides whether a write to a
// file asks first (internal/tools, codepaths.go), never whether anything
// runs; so, unlike knownFilterKeys, an include is not a reason to give up:
// the files read are the system, global and repository ones, and a
// core.hooksPath set only in an included file is not seen.

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/safefile"
)

// systemConfig is the system-wide configuration file of a git built with
// prefix /usr (every distribution's), which the user's git reads first.
const systemConfig = "/etc/gitconfig"

// HooksPath returns the directory from which the user's git, run with env
// (os.Environ() for the user's), runs the hooks of the repository that
// contains dir, when core.hooksPath sets it: absolute and clean, "~/"
// expanded, a relative value joined to the top of the work tree (git runs
// hooks there). It returns "" with ok true when no configuration file read
// sets it or dir is in no repository, and ok false when it cannot tell: a
// layout configFiles does not follow (a linked worktree, a gitfile, a bare
// repository), a variable in env that moves the configuration, a file it
// cannot read or parse, core.worktree set, or "~/" without a home.
func HooksPath(dir string, env []string) (path string, ok bool) {
	var home string
	system := true
	own := []string{"GIT_CONFIG_NOSYSTEM=1"} // what configFiles is given
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_CONFIG_NOSYSTEM":
			system = !gitBool(value)
		case name == "HOME":
			home = value
			own = append(own, kv)
		case name == "XDG_CONFIG_HOME", movesConfig(name):
			own = append(own, kv) // configFiles refuses those it does not follow
		}
	}
	files, _, ok := configFiles(dir, own)
	if !ok {
		return "", false
	}
	if system {
		files = append([]string{systemConfig}, files...)
	}
	gitDir, _ := discoverGitDir(dir) // configFiles found it
	if gitDir == "" {
		return "", true // in no repository: no hooks
	}
	var value string
	set, worktree := false, false
	for _, file := range files {
		// By the tools' rules (a FIFO or a link out of its directory is
		// unknown, never a hang).
		data, err := safefile.Read(context.Background(), file, filepath.Dir(file), maxConfigFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", false
		}
		entries, _, ok := configEntries(data)
		if !ok {
			return "", false
		}
		for _, e := range entries {
			switch e.name {
			case "core.hookspath":
				value, set = e.value, true
			case "core.worktree":
				worktree = true
			}
		}
	}
	if !set || value == "" {
		return "", true
	}
	if value == "~" || strings.HasPrefix(value, "~/") {
		if !filepath.IsAbs(home) {
			return "", false
		}
		value = filepath.Join(home, value[1:])
	}
	if filepath.IsAbs(value) {
		return filepath.Clean(value), true
	}
	if worktree {
		return "", false
	}
	return filepath.Join(filepath.Dir(gitDir), value), true
}

// movesConfig reports whether a variable of git's environment changes
// which repository or configuration files git reads (GIT_SSL_CAINFO,
// GIT_EDITOR and the like do not).
func movesConfig(name string) bool {
	switch name {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM":
		return true
	}
	return strings.HasPrefix(name, "GIT_CONFIG")
}

// gitBool reports whether git reads value as true (git_parse_maybe_bool;
// an unparsable value counts as false here).
func gitBool(value string) bool {
	switch strings.ToLower(value) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
