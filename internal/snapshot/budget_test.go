package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBudgetExceeded(t *testing.T) {
	b := Budget{MaxFiles: 100, FirstTime: 2 * time.Second}
	for _, c := range []struct {
		files   int
		elapsed time.Duration
		want    bool
	}{
		{0, 0, false},                // nothing known yet
		{100, time.Second, false},    // at the limit
		{101, 0, true},               // too many files
		{0, 2*time.Second + 1, true}, // too slow
		{50, 3 * time.Second, true},
	} {
		if got := b.Exceeded(c.files, c.elapsed); got != c.want {
			t.Errorf("Exceeded(%d, %s) = %v, want %v", c.files, c.elapsed, got, c.want)
		}
	}
	if (Budget{}).Exceeded(1<<30, time.Hour) {
		t.Error("a zero budget bounds nothing")
	}
	if n := b.Notice(101); !strings.Contains(n, "101 files > checkpoints.max_files 100") || strings.Contains(n, "\n") {
		t.Errorf("notice %q", n)
	}
}

func TestKnownPaths(t *testing.T) {
	work := "/w"
	got := KnownPaths(work, []string{"/w/a.txt", "sub/b.go", "/elsewhere/x", "../up"},
		[]string{"rm -f big.bin && sed -i -e 1d src/c.go *.log --flag ../out.txt .git/config; rm -rf build"},
		func(rel string) bool { return rel == "build" })
	want := []string{"a.txt", "big.bin", "build", "src/c.go", "sub/b.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("KnownPaths = %q, want %q", got, want)
	}
}

// A tree checkpointed by tool-known paths only: the step's own write is
// undone, and a file the snapshots never named is left as it is, even
// though the restore target does not hold it.
func TestPathsOnlySnapshotUndoesTheNamedFilesOnly(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	sh(t, work, "echo one > a.txt; echo keep > other.txt; mkdir d; echo x > d/y.txt")
	s := openStore(t, work)
	ctx := context.Background()
	before, err := TakePaths(ctx, s, "s1", "before", []string{"a.txt", "new.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.Partial, []string{"a.txt", "new.txt"}) {
		t.Fatalf("Partial = %q", before.Partial)
	}
	sh(t, work, "echo two > a.txt; echo made > new.txt; echo hand > other.txt; echo hand > late.txt")
	after, err := TakePaths(ctx, s, "s1", "after", []string{"a.txt", "new.txt"})
	if err != nil {
		t.Fatal(err)
	}
	patch, err := s.Diff(ctx, before.ID, after.ID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range patch.Files {
		paths = append(paths, f.Path)
	}
	if !slices.Equal(paths, []string{"a.txt", "new.txt"}) {
		t.Fatalf("patch files %q, want a.txt and new.txt", paths)
	}
	got, err := s.Get(ctx, before.ID)
	if err != nil || !slices.Equal(got.Partial, before.Partial) {
		t.Fatalf("Get: partial %q, %v", got.Partial, err)
	}
	if _, err := s.Restore(ctx, "s1", before.ID, RestoreOptions{Expect: after.ID}); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(work, p))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return strings.TrimSpace(string(b))
	}
	if read("a.txt") != "one" {
		t.Errorf("a.txt = %q, want one", read("a.txt"))
	}
	if _, err := os.Stat(filepath.Join(work, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt still there: %v", err)
	}
	for p, want := range map[string]string{"other.txt": "hand", "late.txt": "hand", "d/y.txt": "x"} {
		if read(p) != want {
			t.Errorf("%s = %q, want %q (a file no snapshot named was touched)", p, read(p), want)
		}
	}
}
