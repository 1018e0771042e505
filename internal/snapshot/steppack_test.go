package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// storeFiles counts the store's loose objects and its packs.
func storeFiles(t *testing.T, s *Store) (loose, packs int) {
	t.Helper()
	objects := filepath.Join(s.fast.gitDir, "objects")
	dirs, _ := os.ReadDir(objects)
	for _, d := range dirs {
		if len(d.Name()) == 2 {
			files, _ := os.ReadDir(filepath.Join(objects, d.Name()))
			loose += len(files)
		}
	}
	idx, _ := filepath.Glob(filepath.Join(objects, "pack", "*.idx"))
	return loose, len(idx)
}

// nestedTree writes files under a few levels of directories, dated an
// hour ago (not racily clean).
func nestedTree(t *testing.T, work string, n int) {
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(work, fmt.Sprintf("a%d/b%d/c%d", i%3, i%5, i%2), fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Repeat("y", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
}

// needGoUpdate skips where the Go walk and update do not run (git's
// path stores loose objects as before).
func needGoUpdate(t *testing.T) {
	needGit(t)
	if !statSupported {
		t.Skip("no Go walk on this platform")
	}
}

func fsck(t *testing.T, s *Store) {
	t.Helper()
	if out, err := s.git.Output(context.Background(), nil, "fsck", "--full", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// TestStepWritesItsObjectsInOnePack: a step that changed 3 files in three
// directories writes their blobs and the changed trees as one pack, not a
// loose object each (only the commit and the modes blob stay loose), and
// git reads the store whole.
func TestStepWritesItsObjectsInOnePack(t *testing.T) {
	needGoUpdate(t)
	ctx := context.Background()
	work := t.TempDir()
	nestedTree(t, work, 120)
	s := openStore(t, work)
	if _, err := s.Take(ctx, "t", "first"); err != nil {
		t.Fatal(err)
	}
	loose, packs := storeFiles(t, s)
	for _, p := range []string{"a0/b0/c0/f000.txt", "a1/b1/c1/f001.txt", "a2/b2/c0/f002.txt"} {
		os.WriteFile(filepath.Join(work, p), []byte("changed "+p), 0o644)
	}
	updates := goUpdates.Load()
	snap, err := s.Take(ctx, "t", "step")
	if err != nil {
		t.Fatal(err)
	}
	if goUpdates.Load() == updates {
		t.Fatal("the step was not stored by goPath.update: the test checks nothing")
	}
	loose2, packs2 := storeFiles(t, s)
	if loose2-loose > 2 || packs2 != packs+1 {
		t.Errorf("the step wrote %d loose objects and %d packs; want at most 2 loose (commit, modes) and 1 pack", loose2-loose, packs2-packs)
	}
	fsck(t, s)
	packFiles, _ := filepath.Glob(filepath.Join(s.fast.gitDir, "objects", "pack", "*.pack"))
	for _, f := range packFiles {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "changed a1/b1/c1/f001.txt") {
			t.Errorf("%s holds a changed file's bytes as they are; a step's objects are deflated", f)
		}
	}
	out, err := s.git.Output(ctx, nil, "show", snap.Tree+":a1/b1/c1/f001.txt")
	if err != nil || string(out) != "changed a1/b1/c1/f001.txt" {
		t.Errorf("the step's blob reads %q, %v", out, err)
	}
}

// TestStepPacksStayFew: step after step, the small packs are taken into
// the next step's pack once there are stepPackMerge of them, so the store
// never holds many more; every snapshot stays whole (fsck from every ref).
func TestStepPacksStayFew(t *testing.T) {
	needGoUpdate(t)
	ctx := context.Background()
	work := t.TempDir()
	nestedTree(t, work, 60)
	s := openStore(t, work)
	var snaps []Snapshot
	for i := range 2*stepPackMerge + 5 {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("a%d/b%d/c%d/f%03d.txt", i%3, i%5, i%2, i%60)), []byte(fmt.Sprint("step ", i)), 0o644)
		snap, err := s.Take(ctx, "t", "step")
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snap)
		if _, packs := storeFiles(t, s); packs > stepPackMerge+1 {
			t.Fatalf("step %d: %d packs; want at most %d", i, packs, stepPackMerge+1)
		}
	}
	fsck(t, s)
	for i, snap := range snaps {
		p := fmt.Sprintf("a%d/b%d/c%d/f%03d.txt", i%3, i%5, i%2, i%60)
		if out, err := s.git.Output(ctx, nil, "show", snap.Tree+":"+p); err != nil || string(out) != fmt.Sprint("step ", i) {
			t.Fatalf("snapshot %d: %s reads %q, %v", i, p, out, err)
		}
	}
}

// stepCrashEnv, when set, makes the test binary an agent that takes a
// step's snapshot in SNAP_WORK and kills itself with SIGKILL while it
// removes the small packs its pack took in, after the first.
const stepCrashEnv = "SNAPSHOT_STEP_CRASH_HELPER"

func runStepCrashHelper() int {
	drops := 0
	dropHook = func() {
		if drops++; drops == 2 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	s, err := Open(context.Background(), os.Getenv("SNAP_DATA"), os.Getenv("SNAP_WORK"), Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if _, err := s.Take(context.Background(), "t", "killed"); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("the step finished: the crash did not happen")
	return 1
}

// TestKilledStepPackMergeLeavesAWholeStore: an agent killed while its
// step's pack replaces the small packs it took in leaves a store that
// opens, that git finds whole, where every earlier snapshot reads back and
// the next step is stored.
func TestKilledStepPackMergeLeavesAWholeStore(t *testing.T) {
	needGoUpdate(t)
	ctx := context.Background()
	work, data := t.TempDir(), t.TempDir()
	nestedTree(t, work, 60)
	s, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var snaps []Snapshot
	edit := func(i int) string {
		p := fmt.Sprintf("a%d/b%d/c%d/f%03d.txt", i%3, i%5, i%2, i%60)
		os.WriteFile(filepath.Join(work, p), []byte(fmt.Sprint("step ", i)), 0o644)
		return p
	}
	for i := range stepPackMerge + 1 { // the first snapshot's objects are loose: 60 < packMin
		edit(i)
		snap, err := s.Take(ctx, "t", "step")
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snap)
	}
	edit(stepPackMerge + 1)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stepCrashEnv+"=1", "SNAP_DATA="+data, "SNAP_WORK="+work)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the helper was not killed: %v\n%s", err, out)
	}
	s2, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fsck(t, s2)
	for i, snap := range snaps {
		p := fmt.Sprintf("a%d/b%d/c%d/f%03d.txt", i%3, i%5, i%2, i%60)
		if out, err := s2.git.Output(ctx, nil, "show", snap.Tree+":"+p); err != nil || string(out) != fmt.Sprint("step ", i) {
			t.Fatalf("snapshot %d after the crash: %s reads %q, %v", i, p, out, err)
		}
	}
	p := edit(stepPackMerge + 2)
	snap, err := s2.Take(ctx, "t", "after")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s2.git.Output(ctx, nil, "show", snap.Tree+":"+p); err != nil || string(out) != fmt.Sprint("step ", stepPackMerge+2) {
		t.Fatalf("the step after the crash: %s reads %q, %v", p, out, err)
	}
	fsck(t, s2)
}

// TestStepStoresItsTreesAsTheyAre: a step deflates its blobs (a changed
// file's bytes never readable as is) but stores its trees in stored
// blocks: a tree holds names and ids only, and deflating them was half a
// step's index update.
func TestStepStoresItsTreesAsTheyAre(t *testing.T) {
	needGoUpdate(t)
	ctx := context.Background()
	work := t.TempDir()
	nestedTree(t, work, 120)
	s := openStore(t, work)
	if _, err := s.Take(ctx, "t", "first"); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(s.fast.gitDir, "objects", "pack", "*.pack"))
	os.WriteFile(filepath.Join(work, "a1/b1/c1/f001.txt"), []byte("changed a1/b1/c1/f001.txt"), 0o644)
	if _, err := s.Take(ctx, "t", "step"); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(s.fast.gitDir, "objects", "pack", "*.pack"))
	var step []byte
	for _, f := range after {
		if !slices.Contains(before, f) {
			step, _ = os.ReadFile(f)
		}
	}
	if step == nil {
		t.Fatal("the step wrote no pack: the test checks nothing")
	}
	if !bytes.Contains(step, []byte("100644 f001.txt\x00")) {
		t.Error("the step's tree of a1/b1/c1 is not in its pack as it is: trees are deflated")
	}
	if bytes.Contains(step, []byte("changed a1/b1/c1/f001.txt")) {
		t.Error("the step's pack holds a changed file's bytes as they are")
	}
	fsck(t, s)
}
