package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// genTree writes files files of ~300 bytes into dir, 100 per directory,
// and returns their relative paths.
func genTree(tb testing.TB, dir string, files int) []string {
	tb.Helper()
	paths := make([]string, 0, files)
	body := strings.Repeat("some source line of a generated file\n", 8)
	for i := range files {
		rel := filepath.Join(fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		abs := filepath.Join(dir, rel)
		if i%100 == 0 {
			os.MkdirAll(filepath.Dir(abs), 0o755)
		}
		if err := os.WriteFile(abs, []byte(fmt.Sprintf("// %d\n%s", i, body)), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, rel)
	}
	return paths
}

func benchStore(b *testing.B, files int) (*Store, string, []string) {
	needGit(b)
	work := b.TempDir()
	paths := genTree(b, work, files)
	s, err := Open(context.Background(), b.TempDir(), work, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Take(context.Background(), "bench", "first"); err != nil {
		b.Fatal(err)
	}
	return s, work, paths
}

// BenchmarkSnapshotUnchanged10k: a step that changed nothing (target
// ≤ 100 ms).
func BenchmarkSnapshotUnchanged10k(b *testing.B) {
	s, _, _ := benchStore(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Take(ctx, "bench", "step"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotOneChange10k: a step that edited one file (target
// ≤ 150 ms).
func BenchmarkSnapshotOneChange10k(b *testing.B) {
	s, work, paths := benchStore(b, 10_000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		path := filepath.Join(work, paths[(i*7919)%len(paths)])
		if err := os.WriteFile(path, []byte(fmt.Sprintf("edit %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Take(ctx, "bench", "step"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestore100Files: /undo (then /redo, alternately) of a turn that
// changed 100 files of a 10,000-file tree, both snapshots around each
// restore included (target ≤ 300 ms).
func BenchmarkRestore100Files(b *testing.B) {
	s, work, paths := benchStore(b, 10_000)
	ctx := context.Background()
	before, _ := s.Take(ctx, "bench", "before")
	for i := range 100 {
		os.WriteFile(filepath.Join(work, paths[i*97]), []byte(fmt.Sprintf("turn %d\n", i)), 0o644)
	}
	after, _ := s.Take(ctx, "bench", "after")
	to, expect := before.ID, after.ID
	for b.Loop() {
		res, err := s.Restore(ctx, "bench", to, RestoreOptions{Expect: expect})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Restored) != 100 {
			b.Fatalf("restored %d files", len(res.Restored))
		}
		to, expect = res.Before, res.After
	}
}

// TestSnapshotMemoryDoesNotGrowWithIgnoredOrSkippedData: a tree with a
// 500 MB ignored directory and a 600 MB file over the size limit (sparse,
// so the test is fast) costs git no more memory than a small tree: the
// ignored directory is never entered, the large file never read. The
// measure is the peak RSS of the largest git child this process has
// waited for (RUSAGE_CHILDREN), an upper bound on the snapshot's, with
// the bytes the agent itself allocated and the store's size.
func TestSnapshotMemoryDoesNotGrowWithIgnoredOrSkippedData(t *testing.T) {
	needGit(t)
	if testing.Short() {
		t.Skip("short")
	}
	if raceOn {
		// The race detector's runtime inflates what is measured: the
		// agent's allocations ×6, and a git child's peak RSS, which
		// counts this process's RSS at the fork.
		t.Skip("measures memory: not under -race")
	}
	ctx := context.Background()
	work := t.TempDir()
	genTree(t, work, 200)
	os.WriteFile(filepath.Join(work, ".gitignore"), []byte("cache/\n"), 0o644)
	os.MkdirAll(filepath.Join(work, "cache"), 0o755)
	sparse := func(rel string, size int64) {
		f, err := os.Create(filepath.Join(work, rel))
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(size)
		f.Close()
	}
	sparse("cache/blob", 500<<20)
	sparse("huge.bin", 600<<20)
	sparse("near-limit.bin", DefaultMaxFileBytes-1) // read and stored: the largest file git reads
	s := openStore(t, work)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	snap, err := s.Take(ctx, "ses1", "big")
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(snap.Skipped) != 2 || snap.Skipped[0].Path != "huge.bin" || snap.Skipped[1].Path != "cache/blob" || snap.Skipped[1].Reason != ReasonIgnoredTooLarge {
		t.Errorf("skipped = %+v", snap.Skipped)
	}
	allocBytes := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated by the agent's side of the snapshot: %d KiB", allocBytes>>10)
	// The agent reads and stores the files itself (goindex.go): the
	// largest, 2 MB, and a compressor (≈ 1 MB) per hasher are its own;
	// the 1.1 GB ignored or skipped would be far over.
	if allocBytes > 32<<20 {
		t.Errorf("the snapshot allocated %d bytes in the agent: it read file content", allocBytes)
	}
	if st, _ := s.Stats(ctx); st.SizeBytes > 4<<20 {
		t.Errorf("the store holds %d bytes: it stored the ignored or skipped data", st.SizeBytes)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	peakKiB := ru.Maxrss // KiB on Linux
	t.Logf("peak RSS of a git child: %d KiB", peakKiB)
	if peakKiB > 64<<10 {
		t.Errorf("a git child peaked at %d KiB: the ignored or skipped data was read", peakKiB)
	}
}

// BenchmarkGoWalk10k: the Go walk alone (walk.go) of an unchanged
// 10,000-file tree against the store's index.
func BenchmarkGoWalk10k(b *testing.B) {
	s, _, _ := benchStore(b, 10_000)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, n := cpu(), 0
	for b.Loop() {
		n++
		if _, err := s.fast.walk(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu()-start)/float64(n)/1e6, "cpu-ms/op")
}
