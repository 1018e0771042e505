package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedSnapshotLeavesNothingBehind: a take that fails after writing
// some of its objects (update-index dying of a full disk half-way)
// leaves no object behind, and the next take works.
func TestFailedSnapshotLeavesNothingBehind(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(work, name), []byte("content of "+name+"\n"), 0o644)
	}
	s := openStore(t, work)
	failHook = func(s *Store, paths []string) error {
		for _, p := range paths[:2] {
			if _, err := s.git.Output(ctx, nil, "hash-object", "-w", "--", p); err != nil {
				t.Fatal(err)
			}
		}
		return errors.New("No space left on device")
	}
	_, err := s.Take(ctx, "ses1", "doomed")
	failHook = nil
	if err == nil || !strings.Contains(err.Error(), "No space left") {
		t.Fatalf("take = %v, want the injected failure", err)
	}
	if out, _ := s.git.Output(ctx, nil, "count-objects"); !strings.HasPrefix(string(out), "0 objects") {
		t.Errorf("the failed snapshot left objects: %s", out)
	}
	snap, err := s.Take(ctx, "ses1", "next")
	if err != nil || snap.ID == "" {
		t.Fatalf("the next take: %+v, %v", snap, err)
	}
}
