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

// TestLostChangesSeeWhatNoSnapshotHolds: a big file deleted, a big file
// grown, a nested repository edited inside and a new big file are the
// step's changes no undo can take back; an unchanged one is not.
func TestLostChangesSeeWhatNoSnapshotHolds(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	big := func(name string, n int) {
		os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755)
		os.WriteFile(filepath.Join(work, name), []byte(strings.Repeat("x", n)), 0o644)
	}
	big("gone.bin", 3<<20)
	big("grown.bin", 3<<20)
	big("same.bin", 3<<20)
	os.WriteFile(filepath.Join(work, ".gitignore"), []byte("data/\n"), 0o644)
	big("data/huge.csv", 2<<20)
	big("vendor/lib/x.go", 10)
	userGit(t, filepath.Join(work, "vendor", "lib"), "init", "-q")
	s := openStore(t, work)
	before, err := s.Take(ctx, "ses1", "before")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(work, "gone.bin"))
	os.Remove(filepath.Join(work, "data/huge.csv"))
	big("grown.bin", 4<<20)
	big("vendor/lib/x.go", 20)
	big("new.bin", 3<<20)
	after, err := s.Take(ctx, "ses1", "after")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range LostChanges(before.Skipped, after.Skipped, s.Exists) {
		got[l.Path] = l.Reason + ": " + l.Status.String()
	}
	want := map[string]string{
		"gone.bin": ReasonTooLarge + ": deleted", "grown.bin": ReasonTooLarge + ": modified", "new.bin": ReasonTooLarge + ": added",
		"data/huge.csv": ReasonIgnoredTooLarge + ": deleted", "vendor/lib": ReasonNested + ": modified",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
	if _, ok := got["same.bin"]; ok || len(got) != len(want) {
		t.Errorf("lost = %v", got)
	}
}
