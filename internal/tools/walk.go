package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/ctxloop/agent/internal/tools/gitignore"
)

// skippedDirs are never descended into by grep, glob and ls (unless one is
// the directory asked for): version control data and dependency or cache
// trees that are huge and rarely what a search is about.
var skippedDirs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".git":         "version control data",
		".hg":          "version control data",
		".svn":         "version control data",
		".jj":          "version control data",
		"node_modules": "dependencies",
		"__pycache__":  "Python cache",
		".venv":        "Python virtual environment",
	}
})

// walkFunc is called for each file (not directory) the walk visits, in
// lexical order. path is absolute, rel is slash-separated and relative to the
// walk's root. Returning fs.SkipAll stops the walk.
type walkFunc func(path, rel string, d fs.DirEntry) error

// walkFiles visits the files under root, skipping skippedDirs and what
// .gitignore files (from the enclosing repository down) ignore. Symlinks
// are reported as files and never followed into directories. maxDepth > 0
// limits how deep it goes (1: root's own entries). Unreadable directories
// are skipped.
func walkFiles(ctx context.Context, root string, maxDepth int, fn walkFunc) error {
	w := fileWalker{ctx: ctx, fn: fn, maxDepth: maxDepth}
	err := w.dir(root, "", 1, gitignore.ForRoot(root))
	if err == fs.SkipAll {
		return nil
	}
	return err
}

type fileWalker struct {
	ctx      context.Context
	fn       walkFunc
	maxDepth int
}

func (w *fileWalker) dir(path, rel string, depth int, ign *gitignore.Stack) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := readDirUnsorted(path)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ign = ign.Push(path, gitignore.Load(filepath.Join(path, ".gitignore")))
			break
		}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		name := e.Name()
		childPath := path + string(filepath.Separator) + name
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		isDir := e.IsDir()
		if isDir {
			if _, skip := skippedDirs()[name]; skip {
				continue
			}
		}
		if ign.Ignored(childPath, isDir) {
			continue
		}
		if isDir {
			if w.maxDepth > 0 && depth >= w.maxDepth {
				continue
			}
			if err := w.dir(childPath, childRel, depth+1, ign); err != nil {
				return err
			}
			continue
		}
		if err := w.fn(childPath, childRel, e); err != nil {
			return err
		}
	}
	return nil
}

// readDirUnsorted lists a directory without sorting (callers sort what they
// keep). O_DIRECTORY refuses anything else before opening it, so a FIFO
// swapped in for the directory never blocks.
func readDirUnsorted(path string) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
