package snapshot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"testing/iotest"
)

// TestIndexReaderChecksEveryByteInAnyChunks: the checksum is computed as
// the reader's buffer fills (tailHasher), so it must cover every byte but
// the trailer whatever sizes the file arrives in: one byte at a time
// reads the same entries, and any one byte changed, or the file cut
// short, is refused.
func TestIndexReaderChecksEveryByteInAnyChunks(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	genTree(t, repo, 30)
	userGit(t, repo, "init", "-q")
	userGit(t, repo, "add", "-A")
	userGit(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
	userGit(t, repo, "read-tree", "HEAD") // a TREE extension
	data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(r *indexReader, err error) ([]string, []byte, error) {
		if err != nil {
			return nil, nil, err
		}
		var paths []string
		var e indexEntry
		for r.next(&e) {
			paths = append(paths, e.path)
		}
		tree, err := r.finish()
		return paths, tree, err
	}
	want, wantTree, err := read(newIndexReader(bytesReader(data)))
	if err != nil || len(want) != 30 || wantTree == nil {
		t.Fatalf("read %d entries, tree %v: %v", len(want), wantTree != nil, err)
	}
	got, gotTree, err := read(newIndexReader(iotest.OneByteReader(bytesReader(data))))
	if err != nil || !reflect.DeepEqual(got, want) || string(gotTree) != string(wantTree) {
		t.Fatalf("one byte at a time: %v, %d entries", err, len(got))
	}
	for i := range data {
		bad := append([]byte{}, data...)
		bad[i] ^= 0x20
		if _, _, err := read(newIndexReader(bytesReader(bad))); err == nil {
			t.Fatalf("byte %d of %d changed: read without an error", i, len(data))
		}
	}
	for _, n := range []int{len(data) - 1, len(data) - 20, len(data) - 21, 100} {
		if _, _, err := read(newIndexReader(bytesReader(data[:n]))); err == nil {
			t.Errorf("cut to %d of %d bytes: read without an error", n, len(data))
		}
	}
}

// TestSeedMakesNoStringPerEntryTwice: the seed reads the user's index in
// place: no allocation per entry in its first pass, one (the kept path)
// in its second. 4,000 entries seeded with fewer than 2.5 allocations
// each (7.1 before: a string per entry in each pass, small writes into
// the hashes entry by entry, the blob sizes grown by append).
func TestSeedMakesNoStringPerEntryTwice(t *testing.T) {
	needGit(t)
	if raceOn {
		t.Skip("the race runtime allocates on its own")
	}
	repo := t.TempDir()
	const files = 4000
	genTree(t, repo, files)
	userGit(t, repo, "init", "-q")
	userGit(t, repo, "add", "-A")
	s := openStore(t, repo)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, wait := s.seedIndex(context.Background(), false)
	runtime.ReadMemStats(&after)
	if wait != nil {
		wait()
	}
	if _, err := os.Stat(s.git.IndexFile); err != nil {
		t.Fatal("not seeded")
	}
	per := float64(after.Mallocs-before.Mallocs) / files
	t.Logf("%.2f allocations per entry", per)
	if per > 2.5 {
		t.Errorf("%.2f allocations per entry seeded, want < 2.5", per)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
