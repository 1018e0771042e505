package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

type globTool struct{}

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (globTool) Name() string   { return "glob" }
func (globTool) ReadOnly() bool { return true }

func (globTool) Description() string {
	return `Find files by name with a glob pattern; lists paths, most recently modified first.

- Patterns: * and ? within a name, ** across directories, {a,b} alternatives, [abc] classes. Examples: "**/*.go", "internal/**/*_test.go", "*.{yml,yaml}".
- A pattern without / matches file names at any depth ("*.go" is the same as "**/*.go"); a pattern with / matches paths below path.
- path: the directory to search (default: the session's directory).
- Skips .git, node_modules and what .gitignore ignores. Lists files only (use ls for directories).
- Shows at most 100 paths; if there are more, narrow the pattern or path.`
}

func (globTool) Parameters() json.RawMessage { return globParameters() }

// globParameters is built once: every request carries it.
var globParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "pattern", typ: "string", required: true, description: "The glob pattern, e.g. \"**/*.go\"."},
		param{name: "path", typ: "string", description: "Directory to search (default: the session's directory)."},
	)
})

func (globTool) title(env *Env, input json.RawMessage) string {
	var in globInput
	if decodeInput(input, &in) != nil {
		return ""
	}
	title := "glob " + oneLine(in.Pattern, 60)
	if in.Path != "" {
		title += " in " + shownPath(env, in.Path)
	}
	return title
}

// globRoot splits a glob into the directory to walk (path joined with the
// pattern's literal leading directories, so "../x/*.go" and "/etc/*" walk
// where they point) and the rest of the pattern.
func globRoot(dir, path, pattern string) (root, rest string) {
	base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
	if filepath.IsAbs(pattern) {
		return filepath.Clean(base), rest
	}
	return absPath(absPath(dir, orDot(path)), base), rest
}

func (t globTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in globInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	title := t.title(env, call.Input)
	if strings.TrimSpace(in.Pattern) == "" {
		return errorResult(title, "pattern is empty: give a glob such as \"**/*.go\""), nil
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(in.Pattern)) {
		return errorResult(title, "invalid glob pattern %q (check its brackets and braces)", in.Pattern), nil
	}
	root, rest := globRoot(env.Dir, in.Path, in.Pattern)
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(title, "%s", notFoundMessage(env.Dir, root)), nil
	case err != nil:
		return errorResult(title, "cannot search %s: %v", displayPath(env.Dir, root), err), nil
	case !info.IsDir():
		return errorResult(title, "%s is a file, not a directory: give a directory as path", displayPath(env.Dir, root)), nil
	}

	// A pattern without a slash names files at any depth; otherwise rest
	// matches paths below root. A plain directory lists the files in it.
	byName := !strings.Contains(filepath.ToSlash(in.Pattern), "/")
	if rest == "" {
		rest = "**"
	}
	maxDepth := 0
	if !byName && !strings.Contains(rest, "**") {
		maxDepth = strings.Count(rest, "/") + 1
	}
	type found struct {
		path    string
		modTime time.Time
	}
	var matches []found
	special := 0
	err = walkFiles(ctx, root, maxDepth, func(path, rel string, d fs.DirEntry) error {
		if t := d.Type(); !t.IsRegular() && t&fs.ModeSymlink == 0 {
			special++ // a FIFO, socket or device: not a file to work on
			return nil
		}
		var ok bool
		if byName {
			ok = doublestar.MatchUnvalidated(rest, d.Name())
		} else {
			ok = doublestar.MatchUnvalidated(rest, rel)
		}
		if !ok {
			return nil
		}
		var mod time.Time
		if fi, err := d.Info(); err == nil {
			mod = fi.ModTime()
		}
		matches = append(matches, found{path, mod})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return errorResult(title, "glob was cancelled"), nil
		}
		return Result{}, fmt.Errorf("glob %s: %w", root, err)
	}

	where := displayPath(env.Dir, root)
	meta := map[string]any{"matches": len(matches)}
	skipped := ""
	if special > 0 {
		meta["skipped_special"] = special
		skipped = skippedSpecialNote(special) + "\n"
	}
	if len(matches) == 0 {
		out := fmt.Sprintf("No files match %q in %s.", in.Pattern, where)
		if skipped != "" {
			out += "\n" + skipped
		}
		return Result{Output: out, Title: title, Metadata: meta}, nil
	}
	sort.Slice(matches, func(i, j int) bool {
		if !matches[i].modTime.Equal(matches[j].modTime) {
			return matches[i].modTime.After(matches[j].modTime)
		}
		return matches[i].path < matches[j].path
	})
	limit := env.limits().GlobMaxResults
	var out strings.Builder
	shown := min(len(matches), limit)
	for _, m := range matches[:shown] {
		out.WriteString(displayPath(env.Dir, m.path))
		out.WriteByte('\n')
	}
	if len(matches) > shown {
		fmt.Fprintf(&out, "(Showing the %d most recently modified of %d matching files. Narrow the pattern or path to see others.)\n", shown, len(matches))
		meta["truncated"] = true
	}
	meta["shown"] = shown
	out.WriteString(skipped)
	return Result{Output: out.String(), Title: title, Metadata: meta}, nil
}
