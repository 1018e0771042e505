package snapshot

// repoinit_test.go: a new store is made with as few file system
// operations as git needs (repoinit.go), and a creation cut short is made
// again, HEAD itself half-written included.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInitRepoMakesOnlyWhatIsNeeded: initRepo writes HEAD, the config,
// objects/ and refs/, nothing else (no case probe left, no directories
// no one reads), and a store made so takes snapshots git reads back.
func TestInitRepoMakesOnlyWhatIsNeeded(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	if err := initRepo(dir, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if want := []string{"HEAD", "config", "objects", "refs"}; !slices.Equal(names, want) {
		t.Errorf("initRepo made %q, want %q", names, want)
	}
	// A new store as Open leaves it: the lock and the store's excludes
	// and attributes besides; the config names the work tree.
	work, data := t.TempDir(), t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(s.git.GitDir)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"HEAD", "agent.lock", "config", "info", "objects", "refs"}; !slices.Equal(names, want) {
		t.Errorf("a new store holds %q, want %q", names, want)
	}
	if out, err := s.git.Output(ctx, nil, "rev-parse", "--show-toplevel"); err != nil || strings.TrimSpace(string(out)) != s.workTree {
		t.Errorf("the store's work tree: %q (%v), want %q", out, err, s.workTree)
	}
	// A small first snapshot (loose objects) and a large one (packs).
	for _, n := range []int{3, 300} {
		work := t.TempDir()
		genTree(t, work, n)
		s, err := Open(ctx, t.TempDir(), work, Options{})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := s.Take(ctx, "s", "first")
		if err != nil {
			t.Fatal(err)
		}
		if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
			t.Fatalf("%d files: fsck: %v\n%s", n, err, out)
		}
		out, err := s.git.Output(ctx, nil, "ls-tree", "-r", "--name-only", string(snap.ID))
		if err != nil || len(out) == 0 {
			t.Fatalf("%d files: ls-tree %s: %v\n%s", n, snap.ID, err, out)
		}
	}
}

// TestOpenRemakesAHalfWrittenHEAD: a creation cut short after HEAD was
// created but before its bytes were (a crash, a full disk) leaves an
// empty HEAD; Open makes the store again instead of taking it as made.
func TestOpenRemakesAHalfWrittenHEAD(t *testing.T) {
	needGit(t)
	work, data := t.TempDir(), t.TempDir()
	genTree(t, work, 5)
	_, _, gitDir, err := storeDirs(data, work)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(gitDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"HEAD": "", "config": "[core]\n\trepositoryfor"} {
		if err := os.WriteFile(filepath.Join(gitDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "s", "first"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(gitDir, "HEAD")); string(b) != headBody {
		t.Errorf("HEAD %q, want %q", b, headBody)
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// TestCaseFoldsSeesOnlyTheSameFile: the probe answers from the file under
// another case being the same file: a second file of that name on a
// case-sensitive file system is not folding; a link standing in for a
// folding file system's second name is.
func TestCaseFoldsSeesOnlyTheSameFile(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "CONFIG")); err == nil {
		t.Skip("this file system folds case")
	}
	if caseFolds(config) {
		t.Fatal("caseFolds: true on a case-sensitive file system")
	}
	other := filepath.Join(dir, "cOnFiG")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if caseFolds(config) {
		t.Error("caseFolds: a second file under the other case taken for folding")
	}
	os.Remove(other)
	if err := os.Link(config, other); err != nil {
		t.Skip(err)
	}
	if !caseFolds(config) {
		t.Error("caseFolds: the same file under the other case not taken for folding")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("the probe left %d entries, want 2", len(ents))
	}
}
