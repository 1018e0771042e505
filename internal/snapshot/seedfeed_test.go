package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSeedFeedWalkSeesTheIndexWritten: the first snapshot's walk reads
// the seed's entries as they are written (seedfeed.go); the snapshot is
// the one a store reading every file records, its index the file the
// seed wrote (a step after it runs in Go against it), and when the
// user's index changes between the seed's two passes, the seed's second
// pass fails, the walk with it, and the snapshot is still the right one.
func TestSeedFeedWalkSeesTheIndexWritten(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	for _, changeBetween := range []bool{false, true} {
		repo := t.TempDir()
		genTree(t, repo, 700) // more entries than a few batches
		userGit(t, repo, "init", "-q")
		userGit(t, repo, "add", "-A")
		userGit(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
		os.WriteFile(filepath.Join(repo, "pkg000", "file00001.go"), []byte("changed\n"), 0o644)
		os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644)
		os.Remove(filepath.Join(repo, "pkg000", "file00002.go"))
		want := reference(t, repo)
		if changeBetween {
			seedPassHook = func() { userGit(t, repo, "add", "new.txt") }
		}
		s := openStore(t, repo)
		before := goUpdates.Load()
		got, err := s.Take(ctx, "s", "first")
		seedPassHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if got.Tree != want.Tree {
			t.Fatalf("change between passes %v: tree %s, reading every file %s", changeBetween, got.Tree, want.Tree)
		}
		if ran := goUpdates.Load() - before; !changeBetween && ran != 1 || changeBetween && ran != 0 {
			t.Errorf("change between passes %v: %d snapshots written in Go (the seeded walk's, or none after it failed)", changeBetween, ran)
		}
		os.WriteFile(filepath.Join(repo, "pkg001", "file00003.go"), []byte("step\n"), 0o644)
		step, err := s.Take(ctx, "s", "step")
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, repo); step.Tree != want.Tree {
			t.Errorf("change between passes %v: step tree %s, reading every file %s", changeBetween, step.Tree, want.Tree)
		}
	}
}
