package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// gitRepo makes dir a repository with one committed file.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "main.go"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// The git status the model is given is the one at the start of each turn:
// an edit between turns reaches the next request in its user message,
// while both system messages stay byte-identical (caches; before issue 29
// the second system message was made again with the new status, breaking
// the cached prefix every turn: envcontext_test.go).
func TestGitStatusIsRefreshedEachTurn(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { gitRepo(t, o.Dir) }, pt.Text("one"), pt.Text("two"))
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("second"); res.Err != nil {
		t.Fatal(res.Err)
	}
	first, second := h.request(0), h.request(1)
	if first[0].Content != second[0].Content || first[0].Content != stablePrompt || first[1].Content != second[1].Content {
		t.Error("a system message changed between turns")
	}
	if strings.Contains(first[1].Content, "M main.go") {
		t.Fatalf("the first turn's status shows an edit not yet made:\n%s", first[1].Content)
	}
	if got := second[len(second)-1].Content; !strings.Contains(got, "M main.go") {
		t.Errorf("the second turn's message misses the edit made before it:\n%s", got)
	}
	// The calculator counts the status the next request carries.
	assertReadingMatches(t, h, "after the refresh")
}
