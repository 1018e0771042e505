//go:build linux

package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFirstSnapshotFollowsNoLinkPutAfterTheWalk: a first snapshot's
// files, opened relative to their directory (hashrun_linux.go), are read
// where the walk listed them and no link is followed on the way: a file
// replaced by a symlink between the walk and its open is stored as that
// symlink; a directory replaced by a symlink to a directory outside, with
// files of the same names, stores none of the outside files' bytes (its
// files are gone); a directory renamed stores nothing of its files under
// the old name (gone, as before); the rest is stored as it is. So in a
// first snapshot of packMin files or more (its pack: fullstore.go) and
// in a smaller one (loose objects, the review's case: opened by their
// whole path before, following the link).
func TestFirstSnapshotFollowsNoLinkPutAfterTheWalk(t *testing.T) {
	needGit(t)
	for _, kept := range []int{80, 0} {
		t.Run(strconv.Itoa(kept)+" more files", func(t *testing.T) { followsNoLinkPutAfterTheWalk(t, kept) })
	}
}

func followsNoLinkPutAfterTheWalk(t *testing.T, kept int) {
	ctx := context.Background()
	work, outside := t.TempDir(), t.TempDir()
	write := func(p, body string) {
		t.Helper()
		abs := filepath.Join(work, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range kept { // 80: over packMin, the first snapshot's pack
		write("keep/f"+strconv.Itoa(i), "kept "+strconv.Itoa(i))
	}
	write("a/file", "inside a")
	write("b/s1", "inside b1")
	write("b/s2", "inside b2")
	write("c/t1", "inside c")
	os.WriteFile(filepath.Join(outside, "secret"), []byte("OUTSIDE-SECRET"), 0o644)
	os.MkdirAll(filepath.Join(outside, "dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "dir", "s1"), []byte("OUTSIDE-S1"), 0o644)
	os.WriteFile(filepath.Join(outside, "dir", "s2"), []byte("OUTSIDE-S2"), 0o644)
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	beforeIndexHook = func([]string) { // after the walk, before the files are opened
		must := func(err error) {
			if err != nil {
				t.Error(err)
			}
		}
		must(os.Remove(filepath.Join(work, "a", "file")))
		must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(work, "a", "file")))
		must(os.RemoveAll(filepath.Join(work, "b")))
		must(os.Symlink(filepath.Join(outside, "dir"), filepath.Join(work, "b")))
		must(os.Rename(filepath.Join(work, "c"), filepath.Join(work, "c2")))
	}
	defer func() { beforeIndexHook = nil }()
	updates := goUpdates.Load()
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if goUpdates.Load() == updates {
		t.Fatal("goPath did not store the first snapshot")
	}
	out, err := s.git.Output(ctx, nil, "ls-tree", "-r", "-z", snap.Tree)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // path: mode and content
	for _, line := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		body, err := s.git.Output(ctx, nil, "cat-file", "blob", f[2])
		if err != nil {
			t.Fatal(err)
		}
		got[path] = f[0] + " " + string(body)
	}
	for i := range kept {
		p := "keep/f" + strconv.Itoa(i)
		if want := "100644 kept " + strconv.Itoa(i); got[p] != want {
			t.Errorf("%s: %q, want %q", p, got[p], want)
		}
	}
	if want := "120000 " + filepath.Join(outside, "secret"); got["a/file"] != want {
		t.Errorf("a/file: %q, want the symlink %q", got["a/file"], want)
	}
	for p, v := range got {
		if strings.Contains(v, "OUTSIDE") {
			t.Errorf("%s holds a file outside the work tree: %q (a link followed)", p, v)
		}
		if strings.HasPrefix(p, "c/") || strings.HasPrefix(p, "c2/") {
			t.Errorf("%s stored: the renamed directory's files are gone from where the walk saw them", p)
		}
	}
}
