package snapshot

// cachefile_linux_test.go: the dircache is written in place (no temporary
// file and rename) when that is safe, and never through a link or into a
// FIFO planted at its name (cachefile_linux.go).

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestDirCacheWrittenInPlace: the store's dircache, written again, is the
// same file (no temporary file renamed over it), holds what was written,
// and no temporary file is left.
func TestDirCacheWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	c := newDirCache(filepath.Join(dir, "agent-dircache"))
	c.dirs = map[string]*dirRecord{"a": {list: "x"}}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	ino := inodeOf(t, c.file)
	c.dirs = map[string]*dirRecord{"a": {list: "x"}, "b/c": {list: "longer than before"}, "d": {}}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if got := inodeOf(t, c.file); got != ino {
		t.Errorf("the dircache was replaced (inode %d, was %d), not written in place", got, ino)
	}
	if got := c.load(); len(got) != 3 || got["b/c"] == nil || got["b/c"].list != "longer than before" {
		t.Errorf("read back %v", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left beside it, want only the dircache", len(ents))
	}
}

// TestCacheFileNeverWritesThrough: a hard link, a symlink or a FIFO at the
// cache's name is replaced, the file it points at left as it was, and a
// FIFO does not hang the write.
func TestCacheFileNeverWritesThrough(t *testing.T) {
	for _, kind := range []string{"hardlink", "symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "user-file")
			if err := os.WriteFile(outside, []byte("the user's"), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "agent-dircache")
			var err error
			switch kind {
			case "hardlink":
				err = os.Link(outside, path)
			case "symlink":
				err = os.Symlink(outside, path)
			case "fifo":
				err = syscall.Mkfifo(path, 0o600)
			}
			if err != nil {
				t.Skip(err)
			}
			if err := writeCacheFile(path, []byte("cache")); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "the user's" {
				t.Errorf("written through to the file it points at: %q", b)
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("the cache is %v (%v), want a regular file", fi, err)
			}
			if b, _ := os.ReadFile(path); string(b) != "cache" {
				t.Errorf("the cache holds %q", b)
			}
		})
	}
}
