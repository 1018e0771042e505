package gitcmd

// excludesfile.go: the user's global core.excludesFile, which the store
// (Private, run with GIT_CONFIG_GLOBAL=/dev/null) passes on its command
// line. It is read from the global configuration files without a git
// process: `git config --global` still discovers the repository of its
// directory, and so opens files a hostile repository controls
// (.git/commondir, .git/HEAD) — a FIFO there hung it, and with it the
// opening of the checkpoint store.
//
// The files read are git's global ones in its order ($GIT_CONFIG_GLOBAL
// alone when set; else $XDG_CONFIG_HOME/git/config or
// ~/.config/git/config, then ~/.gitconfig), the last setting winning, and
// the files their [include] path names (up to maxIncludeDepth deep). They
// are the user's own, so a link may lead anywhere, but each is read by the
// tools' other rules: a regular file, never blocking, at most
// maxConfigFile. [includeIf] sections are not followed (their conditions
// read the repository: gitdir, onbranch); a file that cannot be read or
// parsed is passed over.

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/safefile"
)

// maxIncludeDepth bounds nested includes (git's own limit is 10).
const maxIncludeDepth = 10

// UserExcludesFile returns the user's global core.excludesFile, with "~/"
// expanded, or "" when none is set. Nothing of the current directory or
// its repository is read.
func UserExcludesFile(ctx context.Context) string {
	home := os.Getenv("HOME")
	var files []string
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok && g != "" {
		files = []string{expandHome(g, home)}
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	value := ""
	for _, f := range files {
		readExcludes(ctx, f, home, 0, &value)
	}
	if value == "" {
		return ""
	}
	return expandHome(value, home)
}

// readExcludes applies the core.excludesFile settings of file, and of the
// files it includes, to value in order.
func readExcludes(ctx context.Context, file, home string, depth int, value *string) {
	if depth > maxIncludeDepth || file == "" || file == os.DevNull {
		return
	}
	data, err := safefile.Read(ctx, file, "", maxConfigFile)
	if err != nil {
		return
	}
	entries, _, ok := configEntries(data)
	if !ok {
		return
	}
	for _, e := range entries {
		switch e.name {
		case "core.excludesfile":
			*value = e.value
		case "include.path":
			inc := expandHome(e.value, home)
			if inc != "" && !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(file), inc)
			}
			readExcludes(ctx, inc, home, depth+1, value)
		}
	}
}

// expandHome expands a leading "~/" (or a lone "~") to home, as git's
// --type=path does; without a home the value is kept.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}
