package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ECheckpointsInARepositoryBorrowItsObjects: in a git repository the
// first checkpoint stores none of the files the repository holds (the
// store's index is seeded from the user's, its objects borrowed), the
// rewind still brings back a deleted directory and a changed file from
// them, and the user's .git is left byte for byte and time for time.
func TestE2ECheckpointsInARepositoryBorrowItsObjects(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCall("b1", "bash", `{"command":"rm -r lib && printf changed > a.txt"}`),
		pt.Text("done"))
	old := time.Now().Add(-time.Minute)
	write := func(rel, body string) {
		p := filepath.Join(e.work, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old) // older than the index: git trusts its stat data
	}
	write("a.txt", "original\n")
	for i := range 60 {
		write(fmt.Sprintf("lib/d%d/f%02d.go", i/10, i), fmt.Sprintf("package d\n// file %d\n", i))
	}
	gitRepo(t, e)
	dotGit := func() map[string]string {
		out := map[string]string{}
		filepath.WalkDir(filepath.Join(e.work, ".git"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, _ := d.Info()
			body, _ := os.ReadFile(p)
			out[p] = fmt.Sprintf("%x %v %v", sha256.Sum256(body), fi.Mode(), fi.ModTime().UnixNano())
			return nil
		})
		return out
	}
	before := dotGit()

	if res := e.run("", "run", "--yes", "clean up"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.work, "lib")); err == nil {
		t.Fatal("the step did not remove lib")
	}
	loose, _ := filepath.Glob(filepath.Join(e.data, "snapshots", "*", "objects", "??", "*"))
	if len(loose) > 12 {
		t.Errorf("the store wrote %d objects for a step that added one file's content: it copied the repository", len(loose))
	}
	if res := e.run("", "rewind", "-c", "--code"); res.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.work, "a.txt")); string(b) != "original\n" {
		t.Errorf("a.txt after rewind: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "lib", "d5", "f59.go")); err != nil || !strings.Contains(string(b), "file 59") {
		t.Errorf("lib/d5/f59.go after rewind: %q %v", b, err)
	}
	if after := dotGit(); !reflect.DeepEqual(before, after) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("the user's .git changed: %s", k)
			}
		}
		t.Errorf("the user's .git changed (%d files before, %d after)", len(before), len(after))
	}
}
