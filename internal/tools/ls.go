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

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/safefile"
	"github.com/ctxloop/agent/internal/tools/gitignore"
)

const (
	lsMaxEntries = 1000 // entries shown
	lsMaxDepth   = 4    // levels below the listed directory
)

type lsTool struct{}

type lsInput struct {
	Path string `json:"path"`
}

func (lsTool) Name() string   { return "ls" }
func (lsTool) ReadOnly() bool { return true }

func (lsTool) Description() string {
	return `List a directory as a tree (directories end with /), to see how a project is laid out.

- path: the directory to list (default: the session's directory).
- Goes up to 4 levels deep and shows at most 1000 entries, whole levels first; deeper directories show how many entries they hold. List a subdirectory to see more.
- .git, node_modules and similar heavy directories, and directories .gitignore ignores, are shown but not expanded.
- To find files by name use glob; to search contents use grep.`
}

func (lsTool) Parameters() json.RawMessage { return lsParameters() }

// lsParameters is built once: every request carries it.
var lsParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "path", typ: "string", description: "Directory to list (default: the session's directory)."},
	)
})

func (lsTool) title(env *Env, input json.RawMessage) string {
	var in lsInput
	if decodeInput(input, &in) != nil {
		return ""
	}
	return "ls " + shownPath(env, orDot(in.Path))
}

// lsNode is one entry of the tree.
type lsNode struct {
	name     string
	path     string
	isDir    bool
	link     string // symlink target
	note     string // why a directory is not expanded
	children []*lsNode
	count    int  // entries of an unexpanded directory (-1 unknown)
	expanded bool // children listed
}

func (t lsTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in lsInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	title := t.title(env, call.Input)
	root := absPath(env.Dir, orDot(in.Path))
	shown := displayPath(env.Dir, root)
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(title, "%s", notFoundMessage(env.Dir, root)), nil
	case err != nil:
		return errorResult(title, "cannot list %s: %v", shown, err), nil
	case !info.IsDir():
		return errorResult(title, "%s is a file (%s), not a directory: use read to see it", shown, truncate.FormatBytes(info.Size())), nil
	}

	top := &lsNode{name: shown, path: root, isDir: true}
	entries, hidden := t.build(ctx, top)
	if err := ctx.Err(); err != nil {
		return errorResult(title, "ls was cancelled"), nil
	}

	var out strings.Builder
	out.WriteString(strings.TrimSuffix(root, "/") + "/\n")
	writeTree(&out, top.children, 1)
	if hidden > 0 {
		fmt.Fprintf(&out, "(%d more entries not shown: at most %d are listed. List a subdirectory to see them.)\n", hidden, lsMaxEntries)
	}
	meta := map[string]any{"entries": entries, "truncated": hidden > 0}
	return Result{Output: out.String(), Title: title, Metadata: meta}, nil
}

// build reads the tree level by level: a level is expanded only if it fits
// within lsMaxEntries as a whole, so the listing is never lopsided.
// It returns how many entries are shown and how many of the first level
// were left out (only the first level is ever cut).
func (lsTool) build(ctx context.Context, top *lsNode) (entries, hidden int) {
	ign := gitignore.ForRoot(top.path)
	ignores := map[*lsNode]*gitignore.Stack{}
	children, ignTop := readLsDir(top, ign)
	ignores[top] = ignTop
	if len(children) > lsMaxEntries {
		hidden = len(children) - lsMaxEntries
		children = children[:lsMaxEntries]
	}
	top.children, top.expanded = children, true
	entries = len(children)
	level := expandable(children)
	for depth := 2; depth <= lsMaxDepth && len(level) > 0 && ctx.Err() == nil; depth++ {
		var next []*lsNode
		added := 0
		read := map[*lsNode][]*lsNode{}
		for _, d := range level {
			kids, s := readLsDir(d, ignoresOf(ignores, d, ign))
			ignores[d] = s
			read[d] = kids
			added += len(kids)
		}
		if entries+added > lsMaxEntries {
			// This level does not fit: show counts instead.
			for d, kids := range read {
				d.count = len(kids)
			}
			return entries, hidden
		}
		for _, d := range level {
			d.children, d.expanded = read[d], true
			next = append(next, expandable(d.children)...)
		}
		entries += added
		level = next
	}
	// Directories at the depth limit show their entry count.
	for _, d := range level {
		if kids, err := readDirUnsorted(d.path); err == nil {
			d.count = len(kids)
		}
	}
	return entries, hidden
}

func ignoresOf(m map[*lsNode]*gitignore.Stack, d *lsNode, fallback *gitignore.Stack) *gitignore.Stack {
	if s, ok := m[d]; ok {
		return s
	}
	return fallback
}

// expandable returns the directories among nodes that may be listed.
func expandable(nodes []*lsNode) []*lsNode {
	var dirs []*lsNode
	for _, n := range nodes {
		if n.isDir && n.note == "" {
			dirs = append(dirs, n)
		}
	}
	return dirs
}

// readLsDir reads d's entries (directories first, then files, each by name)
// and marks directories not to expand. It returns the ignore stack of d's
// children, which each child directory inherits.
func readLsDir(d *lsNode, parentIgn *gitignore.Stack) ([]*lsNode, *gitignore.Stack) {
	entries, err := readDirUnsorted(d.path)
	if err != nil {
		d.note = "unreadable"
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			d.note += ": " + pe.Err.Error()
		}
		return nil, parentIgn
	}
	ign := parentIgn
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ign = ign.Push(d.path, gitignore.Load(filepath.Join(d.path, ".gitignore")))
		}
	}
	nodes := make([]*lsNode, 0, len(entries))
	for _, e := range entries {
		n := &lsNode{name: e.Name(), path: filepath.Join(d.path, e.Name()), isDir: e.IsDir(), count: -1}
		if e.Type()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(n.path); err == nil {
				n.link = target
			}
		}
		if t := e.Type(); !n.isDir && !t.IsRegular() && t&fs.ModeSymlink == 0 {
			n.note = safefile.Kind(t) + ", not a regular file" // listed, never opened
		}
		if n.isDir {
			if why, skip := skippedDirs()[n.name]; skip {
				n.note = why + ", not expanded"
			} else if ign.Ignored(n.path, true) {
				n.note = "ignored by .gitignore, not expanded"
			}
		}
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].isDir != nodes[j].isDir {
			return nodes[i].isDir
		}
		return nodes[i].name < nodes[j].name
	})
	return nodes, ign
}

func writeTree(b *strings.Builder, nodes []*lsNode, depth int) {
	indent := strings.Repeat("  ", depth)
	for _, n := range nodes {
		b.WriteString(indent)
		b.WriteString(n.name)
		if n.isDir {
			b.WriteByte('/')
		}
		if n.link != "" {
			b.WriteString(" -> " + n.link)
		}
		switch {
		case n.note != "":
			b.WriteString(" (" + n.note + ")")
		case n.isDir && !n.expanded && n.count >= 0:
			fmt.Fprintf(b, " (%d entries)", n.count)
		}
		b.WriteByte('\n')
		if n.expanded {
			writeTree(b, n.children, depth+1)
		}
	}
}
