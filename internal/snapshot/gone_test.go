package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// prunedSetup seeds a store from a repository, snapshots before and after
// the agent changes two files, and then rewrites the user's history so
// the old content of b (and only it) is reachable from nothing, and
// prunes it (`git commit --amend`, reflog expired, `git gc --prune=now`).
func prunedSetup(t *testing.T) (s *Store, repo string, before, after Snapshot, oldA []byte) {
	t.Helper()
	needGit(t)
	ctx := context.Background()
	repo = t.TempDir()
	genTree(t, repo, 10)
	userGit(t, repo, "init", "-q", "-b", "main")
	userGit(t, repo, "add", "-A")
	userGit(t, repo, "commit", "-q", "-m", "init")
	s = openStore(t, repo)
	var err error
	if before, err = s.Take(ctx, "ses1", "before"); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(repo, "pkg000", "file00001.go"), filepath.Join(repo, "pkg000", "file00002.go")
	oldA, _ = os.ReadFile(a)
	os.WriteFile(a, []byte("agent a\n"), 0o644)
	os.WriteFile(b, []byte("agent b\n"), 0o644)
	if after, err = s.Take(ctx, "ses1", "after"); err != nil {
		t.Fatal(err)
	}
	// The user commits b's new content over the only commit: b's old
	// blob is then unreachable, and the gc prunes it. a's old content
	// stays in HEAD (the user restores it).
	userGit(t, repo, "checkout", "-q", "--", "pkg000/file00001.go")
	userGit(t, repo, "add", "pkg000/file00002.go")
	userGit(t, repo, "commit", "-q", "--amend", "-m", "init, b changed")
	userGit(t, repo, "reflog", "expire", "--expire=now", "--all")
	userGit(t, repo, "gc", "-q", "--prune=now")
	os.WriteFile(a, []byte("agent a\n"), 0o644) // back as the agent left it
	return s, repo, before, after, oldA
}

// TestDiffNamesContentPrunedFromTheRepository: a step's diff whose old
// content the user's gc pruned still comes, with the file marked.
func TestDiffNamesContentPrunedFromTheRepository(t *testing.T) {
	s, _, before, after, _ := prunedSetup(t)
	p, err := s.Diff(context.Background(), before.ID, after.ID)
	if err != nil {
		t.Fatalf("Diff failed: %v", err)
	}
	var b, a *FileChange
	for i := range p.Files {
		switch p.Files[i].Path {
		case "pkg000/file00002.go":
			b = &p.Files[i]
		case "pkg000/file00001.go":
			a = &p.Files[i]
		}
	}
	if a == nil || b == nil {
		t.Fatalf("files: %+v", p.Files)
	}
	if !b.Pruned || a.Pruned {
		t.Errorf("Pruned: a %v, b %v; want b only", a.Pruned, b.Pruned)
	}
	if !strings.Contains(p.Text, "pkg000/file00002.go") || !strings.Contains(p.Text, ContentPruned) {
		t.Errorf("the diff does not say b's content is gone:\n%s", p.Text)
	}
	if !strings.Contains(p.Text, "+agent a") {
		t.Errorf("a's diff is missing:\n%s", p.Text)
	}
}

// TestRestoreRefusesWhenAnObjectIsPruned: a restore that needs content
// the repository no longer holds refuses before it touches anything,
// naming the file; forced, it restores the rest and names it.
func TestRestoreRefusesWhenAnObjectIsPruned(t *testing.T) {
	s, repo, before, after, oldA := prunedSetup(t)
	ctx := context.Background()
	a, b := filepath.Join(repo, "pkg000", "file00001.go"), filepath.Join(repo, "pkg000", "file00002.go")
	_, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID})
	var gone *PrunedError
	if !errors.As(err, &gone) || len(gone.Paths) != 1 || gone.Paths[0] != "pkg000/file00002.go" {
		t.Fatalf("Restore = %v, want a PrunedError naming pkg000/file00002.go", err)
	}
	if !strings.Contains(err.Error(), "pkg000/file00002.go") {
		t.Errorf("the error does not name the file: %v", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "agent a\n" {
		t.Errorf("a refused restore changed a: %q", got)
	}
	if got, _ := os.ReadFile(b); string(got) != "agent b\n" {
		t.Errorf("a refused restore changed b: %q", got)
	}
	res, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{Expect: after.ID, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); !bytes.Equal(got, oldA) {
		t.Errorf("forced: a not restored: %q", got)
	}
	if len(res.NotRestored) != 1 || res.NotRestored[0].Path != "pkg000/file00002.go" || res.NotRestored[0].Reason != ReasonGone {
		t.Errorf("forced: not restored %+v", res.NotRestored)
	}
}
