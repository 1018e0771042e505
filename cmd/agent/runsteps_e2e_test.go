package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ERunSaysWhichStepChangedFiles: agent run's text output names the
// step that changed a file, and counts its lines as agent diff does: a
// write that replaces a whole file counts the lines that changed, not all
// of them added.
func TestE2ERunSaysWhichStepChangedFiles(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("r1", "read", `{"path":"f.txt"}`),
		pt.ToolCall("w1", "write", `{"path":"f.txt","content":"a\nB\nc\nd\nE\nf\n"}`),
		pt.Text("rewritten"))
	if err := os.WriteFile(filepath.Join(e.work, "f.txt"), []byte("a\nb\nc\nd\ne\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "run", "--yes", "rewrite f.txt")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if want := "· step 2 changed 1 file (+3 −2 lines): f.txt\n"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
	diff := e.run("", "diff", "-c")
	added, deleted := 0, 0
	for _, l := range strings.Split(diff.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			deleted++
		}
	}
	if added != 3 || deleted != 2 {
		t.Errorf("agent diff shows +%d −%d, want the run's +3 −2:\n%s", added, deleted, diff.stdout)
	}
}
