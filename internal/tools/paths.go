package tools

import (
	"errors"
	"fmt"
	"io/fs"
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

// AbsPath is the path a tool's path argument p names in the session's
// directory dir (absPath): what a front end shows for the call.
func AbsPath(dir, p string) string { return absPath(dir, p) }

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

// maxLinkHops bounds the symlinks followed while resolving one path, like
// the kernel's own limit (40 on Linux): more means a loop.
const maxLinkHops = 40

// errLinkLoop is returned for a path whose symlinks do not end.
var errLinkLoop = errors.New("too many levels of symbolic links")

// resolvePath returns where p (absolute) really leads: every symlink along
// it followed, the last component included and whether its target exists
// or not (a dangling link leads where a write through it would create the
// file). A path that cannot be resolved (a symlink loop) gives an
// unreachable path under the link so that it never counts as inside a
// directory it is not in; permission checks use resolveLinks to see the
// error.
func resolvePath(p string) string {
	r, err := resolveLinks(p)
	if err != nil {
		return string(filepath.Separator) + "\x00unresolvable" + filepath.Clean(p)
	}
	return r
}

// resolveLinks resolves p component by component as the kernel would:
// a symlink's target replaces it (an absolute target restarts at the root,
// a relative one continues from the link's directory, ".." in a target
// going to the physical parent), dangling links included. Once a component
// does not exist, the rest is joined as is: nothing below it exists, so
// no link can redirect it. p is made absolute and clean first.
func resolveLinks(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	root := filepath.VolumeName(p) + string(filepath.Separator)
	todo := splitPath(strings.TrimPrefix(p, root))
	cur := root
	hops := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable): nothing to follow below it.
			return filepath.Join(append([]string{next}, todo...)...), nil
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("resolve %s: %w", p, errLinkLoop)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(filepath.Separator)
			target = strings.TrimPrefix(target, cur)
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil
}

// splitPath splits a relative path into its components ("" and "." kept
// for the caller to skip).
func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, string(filepath.Separator))
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
func shownPath(env *Env, p string) string { return displayPath(env.Dir, AbsPath(env.Dir, p)) }
