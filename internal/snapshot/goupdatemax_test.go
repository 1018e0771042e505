//go:build linux

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

// TestFirstSnapshotOfManyFilesIsGoPath: a first snapshot of more paths
// than the Go update used to take (50,000: more went to git's
// update-index, 14× `tar c` at 100,000 files) is stored by goPath.update,
// and so is the step after it, each with the tree git's `add -A` +
// `write-tree` writes for the same files.
func TestFirstSnapshotOfManyFilesIsGoPath(t *testing.T) {
	needGit(t)
	const n = 60_000
	ctx := context.Background()
	work := t.TempDir()
	for d := range n / 250 {
		dir := filepath.Join(work, fmt.Sprintf("d%03d", d%40), fmt.Sprintf("e%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 250 {
			perm := os.FileMode(0o644)
			if f == 7 {
				perm = 0o755
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), []byte(fmt.Sprintf("%d %d\n", d, f%50)), perm); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.Symlink("d000/e00/f000", filepath.Join(work, "link"))
	oracle := filepath.Join(t.TempDir(), "oracle.git") // git's own repository of the same files, outside them
	userGit(t, work, "init", "-q", "--bare", oracle)
	gitTree := func() string {
		t.Helper()
		cmd := exec.Command("sh", "-c", "git add -A && git write-tree")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR="+oracle, "GIT_WORK_TREE="+work)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git add -A: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	s := openStore(t, work)
	for _, label := range []string{"first", "step"} {
		if label == "step" {
			for _, p := range []string{"d001/e01/f001", "d039/e199/f249", "new.txt"} {
				os.WriteFile(filepath.Join(work, p), []byte("changed\n"), 0o644)
			}
			os.Remove(filepath.Join(work, "d002/e02/f002"))
		}
		updates := goUpdates.Load()
		snap, err := s.Take(ctx, "ses1", label)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Partial != nil || len(snap.Skipped) != 0 {
			t.Fatalf("%s: partial %d paths, skipped %v: not a whole snapshot", label, len(snap.Partial), snap.Skipped)
		}
		if goUpdates.Load() == updates {
			t.Errorf("%s snapshot of %d files went to git's update-index", label, n)
		}
		if want := gitTree(); snap.Tree != want {
			t.Errorf("%s: tree %s, git's add writes %s", label, snap.Tree, want)
		}
	}
}
