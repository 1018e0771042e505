package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffCountsAreGits: the lines an edit or a write counts (the card's
// count, metadata additions and deletions) are the ones git counts for the
// same change (the step's patch line, /diff, the rewind picker and agent
// diff count with git), whatever the change looks like (issue 32: one
// count everywhere).
func TestDiffCountsAreGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var hundred strings.Builder
	for i := range 100 {
		fmt.Fprintf(&hundred, "line %d\n", i)
	}
	h := hundred.String()
	for name, c := range map[string][2]string{
		"whole-file replacement":    {"a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\nf\n"},
		"two lines of a hundred":    {h, strings.Replace(strings.Replace(h, "line 10\n", "LINE 10\n", 1), "line 50\n", "LINE 50\n", 1)},
		"a trailing newline added":  {"a\nb", "a\nb\n"},
		"a CRLF line":               {"a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"},
		"CRLF to LF":                {"a\r\nb\r\nc\r\n", "a\nb\nc\n"},
		"a comment line -- removed": {"x\n-- comment\ny\n", "x\ny\n++ z\n"},
		"header-like lines":         {"x\n--- a\ny\n", "x\ny\n+++ b\n"},
		"a new file":                {"", "a\nb\n"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			if err := os.WriteFile(a, []byte(c[0]), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b, []byte(c[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command("git", "-c", "core.autocrlf=false", "diff", "--no-index", "--numstat", a, b).Output()
			f := strings.Fields(string(out))
			if len(f) < 2 {
				t.Fatalf("git diff --numstat: %q", out)
			}
			want := f[0] + " " + f[1]
			m := diffMetadata("f", c[0], c[1])
			if got := fmt.Sprintf("%v %v", m["additions"], m["deletions"]); got != want {
				t.Errorf("counted +%v −%v, git counts %s:\n%s", m["additions"], m["deletions"], want, m["diff"])
			}
		})
	}
}
