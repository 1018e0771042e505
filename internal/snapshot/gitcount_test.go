package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStepSpawnsNoGitProcess: once the store exists, a snapshot after a
// step that changed 3 files (one new, one edited, one removed) and one
// after a step that changed nothing run no git process — the walk, the
// blobs, the index, the trees, the commit and the ref are the Go side's
// (walk.go, goindex.go, objwrite.go) — and still name the right tree.
func TestStepSpawnsNoGitProcess(t *testing.T) {
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
	ran := func() string {
		b, _ := os.ReadFile(logFile)
		os.Remove(logFile)
		return strings.TrimSpace(string(b))
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
