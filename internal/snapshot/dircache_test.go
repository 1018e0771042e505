//go:build linux

package snapshot

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snapFiles lists the files of snap's tree.
func snapFiles(t *testing.T, s *Store, snap Snapshot) []string {
	t.Helper()
	out, err := s.git.Output(context.Background(), nil, "ls-tree", "-r", "--name-only", "-z", snap.Tree)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// cachedTree is a tree whose directory d's listing the untracked cache
// holds and trusts (its clock an hour ahead): a second snapshot answered
// d from the cache.
func cachedTree(t *testing.T) (*Store, string) {
	t.Helper()
	needGit(t)
	if !cacheableFS(t.TempDir()) {
		t.Skip("the temporary directory's file system is not one the cache trusts")
	}
	work := t.TempDir()
	sh(t, work, "mkdir d && echo a >d/a.txt && echo b >d/b.txt && echo x >d/x.log && printf '*.log\\n' >.gitignore")
	trustEveryListing(t)
	s := openStore(t, work)
	ctx := context.Background()
	if _, err := s.Take(ctx, "s", "first"); err != nil {
		t.Fatal(err)
	}
	hits := dirCacheHits.Load()
	if _, err := s.Take(ctx, "s", "again"); err != nil {
		t.Fatal(err)
	}
	if dirCacheHits.Load()-hits < 2 {
		t.Fatalf("the second walk read the directories again (%d from the cache)", dirCacheHits.Load()-hits)
	}
	return s, work
}

// TestDirCacheSeesEveryChangeOfAListedDirectory: a directory whose
// listing is cached is read again when an entry is added, removed or
// renamed in it, and the ignore rules are applied as they are now (a new
// .gitignore in it, or one edited in place elsewhere), never as cached.
func TestDirCacheSeesEveryChangeOfAListedDirectory(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		has, lacks   []string
	}{
		{"added", "echo c >d/c.txt", []string{"d/c.txt", "d/b.txt"}, nil},
		{"removed", "rm d/b.txt", []string{"d/a.txt"}, []string{"d/b.txt"}},
		{"renamed", "mv d/b.txt d/e.txt", []string{"d/e.txt"}, []string{"d/b.txt"}},
		{"renamed over", "mv d/b.txt d/a.txt", []string{"d/a.txt"}, []string{"d/b.txt"}},
		{"new gitignore", "printf '!x.log\\n' >d/.gitignore", []string{"d/x.log", "d/.gitignore"}, nil},
		{"gitignore edited in place", "printf '*.txt\\n' >>.gitignore && : >.gitignore", []string{"d/x.log"}, nil},
		{"became a directory", "rm d/b.txt && mkdir d/b.txt && echo in >d/b.txt/in", []string{"d/b.txt/in"}, []string{"d/b.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, work := cachedTree(t)
			sh(t, work, tc.script)
			snap, err := s.Take(context.Background(), "s", "after")
			if err != nil {
				t.Fatal(err)
			}
			files := snapFiles(t, s, snap)
			for _, p := range tc.has {
				if !slices.Contains(files, p) {
					t.Errorf("%s: the snapshot lacks %s: %v", tc.script, p, files)
				}
			}
			for _, p := range tc.lacks {
				if slices.Contains(files, p) {
					t.Errorf("%s: the snapshot still has %s: %v", tc.script, p, files)
				}
			}
		})
	}
}

// TestDirCacheDoesNotTrustARacyListing: a directory changed in the same
// timestamp tick as its listing was read keeps the stat data the cache
// recorded; such a listing (its directory's times within racyMargin of
// the read) is read again, not trusted.
func TestDirCacheDoesNotTrustARacyListing(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	if !cacheableFS(work) {
		t.Skip("the temporary directory's file system is not one the cache trusts")
	}
	sh(t, work, "mkdir d && echo a >d/a.txt")
	s := openStore(t, work)
	ctx := context.Background()
	if _, err := s.Take(ctx, "s", "first"); err != nil {
		t.Fatal(err)
	}
	sh(t, work, "echo c >d/c.txt")
	// The change as if made within the tick of the read: the directory's
	// stat data are still the ones recorded.
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(work, "d"), &st); err != nil {
		t.Fatal(err)
	}
	rec := s.fast.dirs.dirs["d/"]
	if rec == nil {
		t.Fatal("the walk recorded no listing of d/")
	}
	rec.st = dirStatOf(&st)
	snap, err := s.Take(ctx, "s", "after")
	if err != nil {
		t.Fatal(err)
	}
	if files := snapFiles(t, s, snap); !slices.Contains(files, "d/c.txt") {
		t.Errorf("a file added within the listing's tick is missing: %v", files)
	}
}

// TestDirCacheIsKeptBesideTheIndex: a new Store (another process) answers
// from the listings the last one wrote; a damaged file is ignored.
func TestDirCacheIsKeptBesideTheIndex(t *testing.T) {
	s, work := cachedTree(t)
	ctx := context.Background()
	data := filepath.Dir(filepath.Dir(s.git.GitDir))
	again := func() int64 {
		t.Helper()
		s2, err := Open(ctx, data, work, Options{})
		if err != nil {
			t.Fatal(err)
		}
		hits := dirCacheHits.Load()
		if _, err := s2.Take(ctx, "s", "again"); err != nil {
			t.Fatal(err)
		}
		return dirCacheHits.Load() - hits
	}
	if n := again(); n < 2 {
		t.Errorf("a new store answered %d listings from the file, want the 2 directories", n)
	}
	file := filepath.Join(s.git.GitDir, "agent-dircache")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := again(); n != 0 {
		t.Errorf("a damaged file answered %d listings", n)
	}
	if n := again(); n < 2 {
		t.Errorf("the file was not written again after the damaged one: %d listings from it", n)
	}
}

// TestDirentsPackedAndBack: a listing packed for the cache comes back as
// read: names, keys and the types the walk tells apart.
func TestDirentsPackedAndBack(t *testing.T) {
	dir := t.TempDir()
	sh(t, dir, "echo a >a && mkdir b && ln -s a c && mkfifo d && echo e >'é z' && mkdir .hidden")
	ents, err := readDirents(dir)
	if err != nil {
		t.Fatal(err)
	}
	back := unpackDirents(packDirents(ents))
	if len(back) != len(ents) {
		t.Fatalf("%d entries back of %d", len(back), len(ents))
	}
	for i, e := range ents {
		b := back[i]
		if b.name != e.name || b.key != e.key || b.typ.IsDir() != e.typ.IsDir() || b.typ.IsRegular() != e.typ.IsRegular() ||
			b.typ&fs.ModeSymlink != e.typ&fs.ModeSymlink {
			t.Errorf("%+v came back as %+v", e, b)
		}
	}
}

// TestDirCacheFileThatIsAFIFOIsIgnored: a FIFO where the cache file
// should be (put there by someone else) never hangs a snapshot: the cache
// starts empty and the step goes on.
func TestDirCacheFileThatIsAFIFOIsIgnored(t *testing.T) {
	s, work := cachedTree(t)
	ctx := context.Background()
	data := filepath.Dir(filepath.Dir(s.git.GitDir))
	file := filepath.Join(s.git.GitDir, "agent-dircache")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		s2, err := Open(ctx, data, work, Options{})
		if err == nil {
			_, err = s2.Take(ctx, "s", "after the fifo")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		w, _ := os.OpenFile(file, os.O_WRONLY, 0) // unblock the reader, then fail
		if w != nil {
			w.Close()
		}
		t.Fatal("a FIFO in place of the cache file hung the snapshot")
	}
}
