//go:build linux

package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeFirstSnapshotIsTwoPacks: a first snapshot of pairMin paths or
// more stores its blobs in two packs, each planned (neither read back),
// which git reads as its own (verify-pack each, fsck --strict); the tree
// is the one git's add writes, and a restore brings files back from
// either pack.
func TestLargeFirstSnapshotIsTwoPacks(t *testing.T) {
	needGit(t)
	defer func(n int) { pairMin = n }(pairMin)
	pairMin = 2 * packMin
	ctx := context.Background()
	work := t.TempDir()
	for i := range 3 * packMin {
		dir := filepath.Join(work, fmt.Sprintf("d%02d", i%5), fmt.Sprintf("e%d", i%3))
		os.MkdirAll(dir, 0o755)
		body := strings.Repeat(fmt.Sprintf("line %d\n", i), i*29)
		if i%9 == 0 {
			body = "the same content\n" // one object, perhaps in both packs
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte(body), 0o644)
	}
	os.Chmod(filepath.Join(work, "d01", "e1", "f001.txt"), 0o755)
	for i := range 6 { // links: blobs put by body, in their path's pack
		os.Symlink(fmt.Sprintf("d00/e0/f%03d.txt", i*15), filepath.Join(work, fmt.Sprintf("link%d", i)))
	}
	s := openStore(t, work)
	reads := packReadBacks.Load()
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if n := packReadBacks.Load() - reads; n != 0 {
		t.Errorf("%d packs read back for their checksum; want none (both planned)", n)
	}
	packs, _ := filepath.Glob(filepath.Join(s.git.GitDir, "objects", "pack", "*.pack"))
	if len(packs) != 2 {
		t.Fatalf("packs = %v, want two", packs)
	}
	for _, p := range packs {
		if out, err := s.git.Output(ctx, nil, "verify-pack", strings.TrimSuffix(p, ".pack")+".idx"); err != nil {
			t.Fatalf("verify-pack %s: %v\n%s", p, err, out)
		}
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	sh(t, "/", "cp -a '"+work+"' '"+cp+"'")
	userGit(t, cp, "init", "-q")
	userGit(t, cp, "add", "-A")
	out, err := exec.Command("git", "-C", cp, "write-tree").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); snap.Tree != want {
		t.Errorf("tree %s, git's add writes %s", snap.Tree, want)
	}
	var changed []string
	for i := range 40 {
		p := filepath.Join(fmt.Sprintf("d%02d", i%5), fmt.Sprintf("e%d", i%3), fmt.Sprintf("f%03d.txt", i))
		changed = append(changed, p)
		os.WriteFile(filepath.Join(work, p), []byte("changed\n"), 0o644)
	}
	if _, err := s.Take(ctx, "ses1", "step"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, "ses1", snap.ID, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	halves := map[bool]int{}
	for i, p := range changed {
		halves[packHalf(filepath.ToSlash(p))]++
		want := strings.Repeat(fmt.Sprintf("line %d\n", i), i*29)
		if i%9 == 0 {
			want = "the same content\n"
		}
		if got, err := os.ReadFile(filepath.Join(work, p)); err != nil || string(got) != want {
			t.Errorf("%s after restore: %.40q %v", p, got, err)
		}
	}
	if halves[true] == 0 || halves[false] == 0 {
		t.Errorf("the restored files came from one pack only (%v): the test checks less", halves)
	}
}

// TestPackPairFailedLeavesNoPack: when the first pack cannot be finished,
// the second, finished already, is removed too.
func TestPackPairFailedLeavesNoPack(t *testing.T) {
	defer func(n int) { pairMin = n }(pairMin)
	pairMin = 2
	gitDir := t.TempDir()
	paths := make([]string, 40)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%02d", i)
	}
	pp, err := newPackPair(gitDir, nil, paths)
	if err != nil {
		t.Fatal(err)
	}
	if pp.b == nil {
		t.Fatal("one pack for 40 paths over pairMin")
	}
	for _, p := range paths {
		if _, err := pp.pick(len(p)).put("blob", []byte("body of "+p)); err != nil {
			t.Fatal(err)
		}
	}
	pp.a.f.Close() // its writes fail from here
	if err := pp.finish(); err == nil {
		t.Fatal("finish succeeded with the first pack's file closed")
	}
	if left, _ := os.ReadDir(filepath.Join(gitDir, "objects", "pack")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestPackPairFinishedEarlyLeavesNoPack: b finished early (finishB, beside
// the trees) is removed when a then fails, or when the pair is aborted;
// and kept, whole, when a finishes.
func TestPackPairFinishedEarlyLeavesNoPack(t *testing.T) {
	defer func(n int) { pairMin = n }(pairMin)
	pairMin = 2
	paths := make([]string, 40)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%02d", i)
	}
	for _, end := range []string{"a fails", "abort", "finish"} {
		gitDir := t.TempDir()
		pp, err := newPackPair(gitDir, nil, paths)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if _, err := pp.pick(len(p)).put("blob", []byte("body of "+p)); err != nil {
				t.Fatal(err)
			}
		}
		pp.finishB()
		packs := filepath.Join(gitDir, "objects", "pack")
		switch end {
		case "a fails":
			pp.a.f.Close()
			if err := pp.finish(); err == nil {
				t.Fatal("finish succeeded with the first pack's file closed")
			}
		case "abort":
			if err := pp.waitB(); err != nil {
				t.Fatal(err) // b finished: abort must remove it
			}
			pp.abort()
		case "finish":
			if err := pp.finish(); err != nil {
				t.Fatal(err)
			}
			if idx, _ := filepath.Glob(filepath.Join(packs, "*.idx")); len(idx) != 2 {
				t.Errorf("%s: packs %v, want two", end, idx)
			}
			continue
		}
		if left, _ := os.ReadDir(packs); len(left) != 0 {
			t.Errorf("%s: left behind: %v", end, left)
		}
	}
}

// TestPackPairBalancesBytes: pick gives each blob to the pack given fewer
// bytes while it has room: the two packs end with about as many bytes
// however the sizes fall by name, and neither takes more blobs than
// planned (neither is read back).
func TestPackPairBalancesBytes(t *testing.T) {
	defer func(n int) { pairMin = n }(pairMin)
	pairMin = 2
	paths := make([]string, 200)
	for i := range paths {
		paths[i] = fmt.Sprintf("d%d/f%03d", i%7, i)
	}
	pp, err := newPackPair(t.TempDir(), nil, paths)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[*packWriter]int{}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i, p := range paths {
		body := bytes.Repeat([]byte{byte(i)}, 100+rnd.IntN(10_000)) // uneven, unique
		if packHalf(p) {
			body = append(body, make([]byte, 5000)...) // the names' split alone would be uneven
		}
		w := pp.pick(len(body))
		sizes[w] += len(body)
		if _, err := w.put("blob", body); err != nil {
			t.Fatal(err)
		}
	}
	if len(pp.a.ents) > pp.a.planned-8 || len(pp.b.ents) > pp.b.planned { // a keeps room for 7 trees and the root
		t.Fatalf("blobs %d/%d in a, %d/%d in b: over the plan", len(pp.a.ents), pp.a.planned, len(pp.b.ents), pp.b.planned)
	}
	if len(pp.a.ents)+len(pp.b.ents) != len(paths) {
		t.Fatalf("%d blobs in a, %d in b; want %d in all", len(pp.a.ents), len(pp.b.ents), len(paths))
	}
	if d := sizes[pp.a] - sizes[pp.b]; d > 20_000 || d < -20_000 {
		t.Errorf("a %d bytes, b %d: not balanced", sizes[pp.a], sizes[pp.b])
	}
	reads := packReadBacks.Load()
	if _, err := pp.a.put("tree", nil); err != nil {
		t.Fatal(err)
	}
	if err := pp.finish(); err != nil {
		t.Fatal(err)
	}
	if n := packReadBacks.Load() - reads; n != 0 {
		t.Errorf("%d packs read back", n)
	}
}

// TestPackHalfSplitsNames: packHalf puts about half of a tree's names in
// each pack.
func TestPackHalfSplitsNames(t *testing.T) {
	n := 0
	for i := range 10000 {
		if packHalf(fmt.Sprintf("src/pkg%02d/file%04d.go", i%37, i)) {
			n++
		}
	}
	if n < 4500 || n > 5500 {
		t.Errorf("%d of 10000 names in the second pack", n)
	}
}

// TestPackPairPicksTheQueueThatTakesIt: a blob goes to the pack whose
// writer's queue takes it now when the other's is full, though that pack
// was given more bytes; with both free, to the one given fewer.
func TestPackPairPicksTheQueueThatTakesIt(t *testing.T) {
	defer func(n int) { pairMin = n }(pairMin)
	pairMin = 2
	paths := make([]string, 40)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%02d", i)
	}
	pp, err := newPackPair(t.TempDir(), nil, paths)
	if err != nil {
		t.Fatal(err)
	}
	defer pp.abort()
	pp.fed = [2]int64{0, 1000} // b was given more
	fill := func(q *packPipe, n int) {
		q.mu.Lock()
		q.bytes = n
		q.mu.Unlock()
	}
	if got := pp.pick(10); got != pp.a {
		t.Error("both queues free: the blob did not go to the pack given fewer bytes")
	}
	fill(pp.a.pipe, pp.a.pipe.budget) // a's writer is behind: its queue full
	if got := pp.pick(10); got != pp.b {
		t.Error("a's queue full, b's free: the blob went to a, where its reader waits")
	}
	fill(pp.b.pipe, pp.b.pipe.budget) // both full: by bytes again
	if got := pp.pick(10); got != pp.a {
		t.Error("both queues full: the blob did not go to the pack given fewer bytes")
	}
	fill(pp.a.pipe, 0)
	fill(pp.b.pipe, 0)
}
