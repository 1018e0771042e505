package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/gitcmd"
)

// TestStepSpawnsNoGitProcess: once the store exists, a snapshot after a
// step that changed 3 files (one new, one edited, one removed) and one
// after a step that changed nothing run no git process — the walk, the
// blobs, the index, the trees, the commit and the ref are the Go side's
// (walk.go, goindex.go, objwrite.go) — and still name the right tree.
func TestStepSpawnsNoGitProcess(t *testing.T) {
	ran := logGit(t)
	work := t.TempDir()
	paths := genTree(t, work, 300)
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "s", "first"); err != nil {
		t.Fatal(err)
	}
	ran()
	os.WriteFile(filepath.Join(work, "new.txt"), []byte("new\n"), 0o644)
	os.WriteFile(filepath.Join(work, paths[7]), []byte("edited\n"), 0o644)
	os.Remove(filepath.Join(work, paths[200]))
	step, err := s.Take(ctx, "s", "step")
	if err != nil {
		t.Fatal(err)
	}
	if got := ran(); got != "" {
		t.Errorf("a 3-file step ran git:\n%s", got)
	}
	same, err := s.Take(ctx, "s", "same")
	if err != nil {
		t.Fatal(err)
	}
	if got := ran(); got != "" {
		t.Errorf("an unchanged step ran git:\n%s", got)
	}
	if same.Tree != step.Tree {
		t.Errorf("unchanged tree %s, the step's %s", same.Tree, step.Tree)
	}
	// The tree is the one git writes for the same files.
	ref := t.TempDir()
	cmd := exec.Command("sh", "-c", "git init -q && git add -A && git write-tree")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GIT_DIR="+ref, "GIT_WORK_TREE="+work, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); step.Tree != want {
		t.Errorf("step tree %s, git's %s", step.Tree, want)
	}
}

// logGit puts a git in PATH that logs each command's name; ran returns
// (and clears) what ran since it was last called.
func logGit(t *testing.T) (ran func() string) {
	t.Helper()
	needGit(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, logFile := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	script := fmt.Sprintf("#!/bin/sh\nfor a; do case $a in -c|--*|*=*) ;; *) echo \"$a\" >> %q; break;; esac; done\nexec %q \"$@\"\n", logFile, real)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() string {
		b, _ := os.ReadFile(logFile)
		os.Remove(logFile)
		return strings.TrimSpace(string(b))
	}
}

// TestNewStoreSpawnsNoGitProcess: a new store is created in Go (initRepo),
// as `git init` creates one, and a first snapshot outside a repository
// runs no git either; git reads the store as its own (fsck).
func TestNewStoreSpawnsNoGitProcess(t *testing.T) {
	ran := logGit(t)
	work := t.TempDir()
	genTree(t, work, 100)
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "s", "first"); err != nil {
		t.Fatal(err)
	}
	if got := ran(); got != "" {
		t.Errorf("a new store and its first snapshot ran git:\n%s", got)
	}
	// What `git init` writes, run as the store runs git.
	ref := t.TempDir()
	p := s.git
	p.GitDir, p.IndexFile = ref, filepath.Join(ref, "agent-index")
	if _, err := p.Output(ctx, nil, "init", "-q", "--template="); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"HEAD", "config"} {
		want, _ := os.ReadFile(filepath.Join(ref, f))
		got, _ := os.ReadFile(filepath.Join(s.git.GitDir, f))
		if string(got) != string(want) {
			t.Errorf("the store's %s:\n%s\ngit init's:\n%s", f, got, want)
		}
	}
	for _, d := range []string{"objects", "refs"} { // what git needs (repoinit.go)
		if fi, err := os.Stat(filepath.Join(s.git.GitDir, d)); err != nil || !fi.IsDir() {
			t.Errorf("the store has no %s: %v", d, err)
		}
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// TestInitRepoQuotesAsGit: the work tree's path is written in the store's
// config as git writes it, odd characters included.
func TestInitRepoQuotesAsGit(t *testing.T) {
	needGit(t)
	for _, name := range []string{"plain", "a b", " lead", "trail ", "x;y", "h#sh", `q"uote`, `back\slash`, "tab\there"} {
		work := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		mine, ref := t.TempDir(), t.TempDir()
		if err := initRepo(mine, work); err != nil {
			t.Fatal(err)
		}
		p := gitcmd.Private{GitDir: ref, WorkTree: work, IndexFile: filepath.Join(ref, "index")}
		if _, err := p.Output(context.Background(), nil, "init", "-q", "--template="); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(mine, "config"))
		want, _ := os.ReadFile(filepath.Join(ref, "config"))
		if string(got) != string(want) {
			t.Errorf("%q: the config\n%s\ngit's\n%s", name, got, want)
		}
	}
}
