package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sprintf is fmt.Sprintf that leaves a format without arguments alone, so
// messages quoting user text with % survive.
func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// absPath resolves p against dir: "~/" is the home directory, a relative
// path joins dir, and the result is cleaned. Symlinks are not resolved.
func absPath(dir, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// resolvePath returns p (absolute and clean) with symlinks resolved on its
// longest existing prefix, so a path through a symlink, or a file not yet
// created under one, shows where it really leads.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	// Walk up to the longest existing prefix, resolve it, and put the
	// missing rest back.
	rest := ""
	cur := p
	for {
		parent := filepath.Dir(cur)
		rest = filepath.Join(filepath.Base(cur), rest)
		if parent == cur {
			return p
		}
		cur = parent
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
	}
}

// within reports whether p is dir or inside it. Both must be clean and
// absolute.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// displayPath is how a path is shown to the model and the TUI: relative to
// dir when inside it, absolute otherwise.
func displayPath(dir, p string) string {
	if within(dir, p) {
		if rel, err := filepath.Rel(dir, p); err == nil {
			return rel
		}
	}
	return p
}

// shownPath is how a tool call's path appears in titles and messages: p
// resolved against the session's directory, shown relative to it.
func shownPath(env *Env, p string) string { return displayPath(env.Dir, absPath(env.Dir, p)) }
