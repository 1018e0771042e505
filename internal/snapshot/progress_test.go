package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// progressTree writes n small files under work.
func progressTree(t *testing.T, work string, n int) {
	t.Helper()
	for i := range n {
		p := filepath.Join(work, fmt.Sprintf("d%02d", i%10), fmt.Sprintf("f%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fastProgress reports every chunk of 10 files, from the start.
func fastProgress(t *testing.T) {
	c, d, e := progressChunk, progressDelay, progressEvery
	progressChunk, progressDelay, progressEvery = 10, 0, 0
	t.Cleanup(func() { progressChunk, progressDelay, progressEvery = c, d, e })
}

// TestSnapshotReportsProgress: a take with many files to hash reports
// increasing counts of the same total, ending at the total, and the
// snapshot holds every file.
func TestSnapshotReportsProgress(t *testing.T) {
	needGit(t)
	fastProgress(t)
	work := t.TempDir()
	progressTree(t, work, 45)
	s := openStore(t, work)
	var got [][2]int
	ctx := WithProgress(context.Background(), func(done, total int) { got = append(got, [2]int{done, total}) }, nil)
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("reports = %v, want 5 (chunks of 10 over 45 files)", got)
	}
	for i, r := range got {
		if r[1] != 45 || r[0] <= 0 || r[0] > 45 || (i > 0 && r[0] <= got[i-1][0]) {
			t.Fatalf("reports = %v: not increasing counts of 45", got)
		}
	}
	if got[len(got)-1][0] != 45 {
		t.Errorf("last report = %v, want 45/45", got[len(got)-1])
	}
	out, err := s.git.Output(context.Background(), nil, "ls-tree", "-r", "--name-only", snap.Tree)
	if err != nil || strings.Count(string(out), "\n") != 45 {
		t.Errorf("snapshot holds %d files (%v), want 45", strings.Count(string(out), "\n"), err)
	}
}

// TestSnapshotProgressIsQuietWhenFast: the default throttle never
// reports a take that is over at once.
func TestSnapshotProgressIsQuietWhenFast(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	progressTree(t, work, 20)
	s := openStore(t, work)
	calls := 0
	ctx := WithProgress(context.Background(), func(int, int) { calls++ }, nil)
	if _, err := s.Take(ctx, "ses1", "first"); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a fast take reported %d times", calls)
	}
}

// TestSkippedSnapshotLeavesNothingHalfWritten: closing the skip channel
// after the first report stops the take with ErrSkipped; no object of it
// stays behind, no ref names it, and the next take works and holds
// every file.
func TestSkippedSnapshotLeavesNothingHalfWritten(t *testing.T) {
	needGit(t)
	fastProgress(t)
	bg := context.Background()
	work := t.TempDir()
	progressTree(t, work, 45)
	s := openStore(t, work)
	skip := make(chan struct{})
	reports := 0
	ctx := WithProgress(bg, func(done, total int) {
		reports++
		if reports == 1 {
			close(skip)
		}
	}, skip)
	_, err := s.Take(ctx, "ses1", "skipped")
	if !errors.Is(err, ErrSkipped) {
		t.Fatalf("take = %v, want ErrSkipped", err)
	}
	if reports != 1 {
		t.Errorf("%d reports after the skip, want the take to stop at the next chunk", reports-1)
	}
	if out, _ := s.git.Output(bg, nil, "for-each-ref", "refs/agent/"); len(out) != 0 {
		t.Errorf("a ref names the skipped snapshot: %s", out)
	}
	if out, _ := s.git.Output(bg, nil, "fsck", "--unreachable", "--no-reflogs"); strings.Contains(string(out), "unreachable") {
		t.Errorf("the skipped snapshot left unreachable objects: %s", out)
	}
	snap, err := s.Take(bg, "ses1", "next")
	if err != nil || snap.ID == "" {
		t.Fatalf("the next take: %+v, %v", snap, err)
	}
	out, _ := s.git.Output(bg, nil, "ls-tree", "-r", "--name-only", snap.Tree)
	if n := strings.Count(string(out), "\n"); n != 45 {
		t.Errorf("the next snapshot holds %d files, want 45", n)
	}
}
