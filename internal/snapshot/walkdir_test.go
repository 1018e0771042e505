//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestDirFDEntriesAreReadDirents: the walk's getdents listing answers as
// os.ReadDir's (readDirents) for every kind of entry, .git left out, in
// a directory larger than one getdents buffer; a directory replaced by a
// symlink is not entered through it.
func TestDirFDEntriesAreReadDirents(t *testing.T) {
	dir := t.TempDir()
	for i := range 1500 { // ≈ 40 KB of dirents: more than one 32 KiB read
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-with-a-longer-name-%04d.go", i)), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.Mkdir(filepath.Join(dir, "sub-"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "link"))
	os.Symlink("nowhere", filepath.Join(dir, "dangling"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
	}
	want, err := readDirents(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := openDirAt(nil, "", dir)
	if d == nil {
		t.Fatal("not opened")
	}
	defer d.release()
	got, err := d.entries(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("entries: %v, %d entries, want %d", err, len(got), len(want))
	}
	if sub := openDirAt(d, "link", filepath.Join(dir, "link")); sub != nil {
		sub.release()
		t.Error("a symlink to a directory was opened as one")
	}
	sub := openDirAt(d, "sub", filepath.Join(dir, "sub"))
	if sub == nil {
		t.Fatal("sub not opened")
	}
	sub.release()
}

// TestWalkClosesEveryDirectory: the directories the walk opens are shared
// with the statters; once a snapshot is taken (a first one, a step after
// changes, an unchanged one), none is left open.
func TestWalkClosesEveryDirectory(t *testing.T) {
	work := t.TempDir()
	genTree(t, work, 300)
	s := openStore(t, work)
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	ctx := context.Background()
	before := fds()
	for i := range 3 {
		if i == 1 {
			os.WriteFile(filepath.Join(work, "pkg000", "file00001.go"), []byte("changed"), 0o644)
			os.RemoveAll(filepath.Join(work, "pkg001"))
		}
		if _, err := s.Take(ctx, "s", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		if n := fds(); n > before {
			t.Fatalf("snapshot %d: %d descriptors open, %d before", i, n, before)
		}
	}
}
