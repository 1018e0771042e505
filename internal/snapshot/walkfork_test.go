//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// TestForkedWalkIsTheSerialWalk: a walk with no index, its subdirectories
// walked side by side (walkfork.go), answers what the serial walk answers,
// in the same order — the untracked files, nested repositories and the
// ignored files and directories, under .gitignore files at several
// depths, links and FIFOs — with every listing read, and with the
// listings answered from the directory cache.
func TestForkedWalkIsTheSerialWalk(t *testing.T) {
	needGit(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // slots to fork into on any machine
	ctx := context.Background()
	work := t.TempDir()
	rng := rand.New(rand.NewPCG(26, 4))
	var mk func(dir string, depth int)
	mk = func(dir string, depth int) {
		os.MkdirAll(dir, 0o755)
		for i := range 2 + rng.IntN(6) {
			name := fmt.Sprintf("f%d%s", i, []string{".go", ".log", ".txt"}[rng.IntN(3)])
			os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644)
		}
		switch rng.IntN(6) {
		case 0:
			os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\nbuild/\n"), 0o644)
		case 1:
			os.Symlink("f0.go", filepath.Join(dir, "link"))
		case 2:
			syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
		}
		if depth < 3 {
			for i := range max(2+rng.IntN(3), 5-depth) {
				name := fmt.Sprintf("d%d", i)
				if rng.IntN(8) == 0 {
					name = "build"
				}
				mk(filepath.Join(dir, name), depth+1)
			}
		}
	}
	mk(work, 0)
	userGit(t, filepath.Join(work, "d4"), "init", "-q") // a nested repository
	os.WriteFile(filepath.Join(work, ".gitignore"), []byte("/d1/d0/\n"), 0o644)
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	walk := func(parallel bool) walkResult {
		t.Helper()
		defer func(p bool) { walkParallel = p }(walkParallel)
		walkParallel = parallel
		wr, err := s.fast.walk(nil)
		if err != nil {
			t.Fatal(err)
		}
		return wr
	}
	serial := walk(false)
	if len(serial.changed) < 100 || len(serial.ignored) == 0 {
		t.Fatalf("%d changed, %d ignored: the tree is too small to tell: %q %q", len(serial.changed), len(serial.ignored), serial.changed, serial.ignored)
	}
	if !slices.Contains(serial.changed, "d4/") {
		t.Fatalf("the nested repository is not listed: %v", serial.changed[:10])
	}
	for _, cached := range []bool{false, true} {
		if cached {
			trustEveryListing(t)
		}
		hits, forks := dirCacheHits.Load(), walkForks.Load()
		for range 3 {
			got := walk(true)
			if !slices.Equal(got.changed, serial.changed) {
				t.Fatalf("cached %v: forked walk lists\n%q\nthe serial walk\n%q", cached, got.changed, serial.changed)
			}
			if !slices.Equal(got.ignored, serial.ignored) {
				t.Fatalf("cached %v: forked walk ignores\n%q\nthe serial walk\n%q", cached, got.ignored, serial.ignored)
			}
		}
		if walkForks.Load() == forks {
			t.Fatal("no directory was walked on a goroutine of its own")
		}
		if cached && dirCacheHits.Load() == hits {
			t.Fatal("no listing came from the cache")
		}
	}
}
