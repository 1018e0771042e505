package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EConfigTypoIsWarned: agent run with a misspelt key in the user's
// config says which file, line and key, and still runs with the rest.
func TestE2EConfigTypoIsWarned(t *testing.T) {
	e := newEnv(t, pt.Text("hello"))
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("{\n  \"permisions\": {\"bash\": \"allow\"}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "run", "say hello")
	if res.code != 0 || !strings.Contains(res.stdout, "hello") {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if want := cfg + `:2: unknown key "permisions" is ignored`; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
}
