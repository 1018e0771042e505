//go:build linux

package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStepCopiesUnchangedIndexEntries: a step that changed, added and
// removed a few files of 300 copies the other entries' bytes into the new
// index, encoding none of them again, and the index it writes is the one
// encoding every entry would give: the same bytes, its checksum over the
// whole file, and git reads the same entries from it.
func TestStepCopiesUnchangedIndexEntries(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 300 {
		p := filepath.Join(work, fmt.Sprintf("d%d/sub%d", i%7, i%3), fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old) // not racily clean: the step hashes only what it changes
	}
	s := openStore(t, work)
	if _, err := s.Take(ctx, "t", "first"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "d1/sub1/f001.txt"), []byte("changed"), 0o644)
	os.WriteFile(filepath.Join(work, "d0/new.txt"), []byte("new"), 0o644)
	os.Remove(filepath.Join(work, "d5/sub2/f005.txt"))
	encoded, updates := entriesEncoded.Load(), goUpdates.Load()
	if _, err := s.Take(ctx, "t", "step"); err != nil {
		t.Fatal(err)
	}
	if goUpdates.Load() == updates {
		t.Fatal("the step was not stored by goPath.update: the test checks nothing")
	}
	if n := entriesEncoded.Load() - encoded; n != 0 {
		t.Errorf("the step encoded %d unchanged entries again; want 0 (copied as they are)", n)
	}
	data, err := os.ReadFile(s.git.IndexFile)
	if err != nil {
		t.Fatal(err)
	}
	// Read back with the checksum checked, and encoded again whole.
	x, err := newIndexReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	writeIndexHeader(&again, x.n)
	var e indexEntry
	for x.next(&e) {
		writeEntry(&again, &e)
	}
	if _, err := x.finish(); err != nil {
		t.Fatalf("the step's index does not read back (checksum): %v", err)
	}
	if !bytes.HasPrefix(data, again.Bytes()) {
		t.Error("the step's entries differ from those encoding each entry gives")
	}
	out, err := s.git.Output(ctx, nil, "ls-files", "--stage")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 300 || !strings.Contains(string(out), "\td0/new.txt\n") || strings.Contains(string(out), "f005.txt") {
		t.Errorf("git lists %d entries (want 300, d0/new.txt in, f005.txt out):\n%s", len(lines), out)
	}
}
