//go:build linux

package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A first snapshot under packMin files is stored as loose objects; its
// paths are not looked up again for an ancestor that became a link
// (blockedBy is skipped for a first walk), so its files too must be
// opened relative to their directories, no link followed: a directory
// replaced by a symlink after the walk must not store the files outside
// the work tree that the link leads to (found by review: the loose path
// opened each file by its whole path).
func TestSmallFirstSnapshotFollowsNoLinkPutAfterTheWalk(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(work, "b"), 0o755)
	os.WriteFile(filepath.Join(work, "b", "s1"), []byte("inside b1"), 0o644)
	os.WriteFile(filepath.Join(work, "top"), []byte("top"), 0o644)
	os.MkdirAll(filepath.Join(outside, "dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "dir", "s1"), []byte("OUTSIDE-S1"), 0o644)
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	beforeIndexHook = func([]string) { // after the walk, before the files are opened
		if err := os.RemoveAll(filepath.Join(work, "b")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(outside, "dir"), filepath.Join(work, "b")); err != nil {
			t.Error(err)
		}
	}
	defer func() { beforeIndexHook = nil }()
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.git.Output(ctx, nil, "ls-tree", "-r", "-z", snap.Tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		body, err := s.git.Output(ctx, nil, "cat-file", "blob", f[2])
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), "OUTSIDE") {
			t.Errorf("%s holds a file outside the work tree: %q (a link followed)", path, body)
		}
	}
}
