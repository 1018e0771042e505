package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestUnchangedTreeReusesTheSnapshot: a snapshot of a tree that has not
// changed is the previous one, until a file changes or another process
// (another Store on the same store) rewrites the index.
func TestUnchangedTreeReusesTheSnapshot(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *Store {
		s, err := Open(ctx, data, work, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	first, err := s.Take(ctx, "s1", "first")
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Take(ctx, "s1", "again")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.Label != "again" {
		t.Errorf("unchanged tree: %s (%q), want the previous snapshot %s relabelled", again.ID, again.Label, first.ID)
	}
	if other, err := s.Take(ctx, "s2", "other session"); err != nil || other.ID == first.ID {
		t.Errorf("another session reused this session's snapshot (err %v)", err)
	}

	// Another agent in the same directory changes a file and snapshots it.
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := open().Take(ctx, "s9", "the other agent"); err != nil {
		t.Fatal(err)
	}
	// The walk shows nothing new against the shared index, but the tree is
	// not the one this Store took last.
	after, err := s.Take(ctx, "s1", "after")
	if err != nil {
		t.Fatal(err)
	}
	if after.Tree == first.Tree {
		t.Errorf("the snapshot after another process's change kept the old tree %s", first.Tree)
	}
}
