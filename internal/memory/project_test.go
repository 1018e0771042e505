package memory

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// TestMemoriesBelongToTheRepository: a fact remembered in a repository's
// subdirectory is found by a session at the root and in a sibling
// subdirectory (the repository is the project), one kept at the root is
// found below it, and another repository beside it sees none of them.
func TestMemoriesBelongToTheRepository(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root := t.TempDir()
	repo, other := filepath.Join(root, "repo"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "cmd", "x"), filepath.Join(repo, "docs"), filepath.Join(other, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	remember := func(dir, text string) {
		t.Helper()
		tool := &rememberTool{q: st.Memories(), cfg: config.Memory{Remember: "allow"}}
		in, _ := json.Marshal(map[string]string{"text": text})
		res, err := tool.Run(ctx, &tools.Env{Dir: dir}, tools.Call{ID: "c", Input: in})
		if err != nil || res.IsError {
			t.Fatalf("remember in %s: %v %s", dir, err, res.Output)
		}
	}
	remember(filepath.Join(repo, "cmd", "x"), "The tests run with make check-all")
	remember(repo, "Deploys go through make ship")
	seen := func(dir string) string {
		ms, err := st.Memories().List(ctx, Scopes(dir)...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		return strings.Join(out, "; ")
	}
	want := "The tests run with make check-all; Deploys go through make ship"
	for _, dir := range []string{repo, filepath.Join(repo, "docs"), filepath.Join(repo, "cmd", "x")} {
		if got := seen(dir); got != want {
			t.Errorf("a session in %s sees %q, want %q", dir, got, want)
		}
	}
	if got := seen(other); got != "" {
		t.Errorf("another repository sees %q", got)
	}
	if block := Block(ctx, st.Memories(), filepath.Join(repo, "docs")); !strings.Contains(block, "2 facts are remembered") {
		t.Errorf("the prompt in a subdirectory counts: %q", block)
	}
}
