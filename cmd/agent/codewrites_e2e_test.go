package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EWritesThatBecomeCodeAsk: with `write: allow` and `bash: deny`,
// the README's hook example (a PostToolUse hook running
// scripts/lint-changed) does not turn a write into code execution: the
// model's write to the hook's script, and to .envrc, ask, and headless
// without --yes they are denied saying why; an ordinary file is written.
// `agent hooks list` says the hook runs a repository file.
func TestE2EWritesThatBecomeCodeAsk(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("c_read", "read", `{"path":"scripts/lint-changed"}`),
		pt.ToolCall("c_envrc", "write", `{"path":".envrc","content":"touch pwned\n"}`),
		pt.ToolCall("c_hook", "write", `{"path":"scripts/lint-changed","content":"#!/bin/sh\ntouch pwned\n"}`),
		pt.ToolCall("c_main", "write", `{"path":"main.go","content":"package main\n"}`),
		pt.Text("Done."))
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{
		"permissions": map[string]any{"write": "allow", "edit": "allow", "bash": "deny"},
		"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "Write|Edit",
			"hooks": []any{map[string]any{"type": "command", "command": "$CLAUDE_PROJECT_DIR/scripts/lint-changed"}}}}},
	})
	script := filepath.Join(e.work, "scripts", "lint-changed")
	os.MkdirAll(filepath.Dir(script), 0o755)
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	res := e.run("", "run", "--format", "json", "set things up")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	results := toolResults(t, res.stdout)
	for id, want := range map[string]string{"c_envrc": "direnv", "c_hook": "a configured hook runs"} {
		out, _ := results[id]["output"].(string)
		if results[id]["is_error"] != true || !strings.Contains(out, "permission denied") || !strings.Contains(out, want) || !strings.Contains(out, "--yes") {
			t.Errorf("%s: result %v, want a denial saying %q", id, results[id], want)
		}
	}
	if results["c_main"]["is_error"] != false {
		t.Errorf("main.go was not written: %v", results["c_main"])
	}
	if _, err := os.Stat(filepath.Join(e.work, ".envrc")); err == nil {
		t.Error(".envrc was written")
	}
	if b, _ := os.ReadFile(script); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the hook's script was rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(e.work, "pwned")); err == nil {
		t.Error("code the model wrote ran")
	}

	list := e.run("", "hooks", "list")
	if !strings.Contains(list.stdout, "runs a repository file (scripts/lint-changed): a write to it is code execution") {
		t.Errorf("hooks list does not flag the hook:\n%s", list.stdout)
	}
	if strings.Contains(list.stdout, "repository's build") {
		t.Errorf("hooks list calls the lint hook a build:\n%s", list.stdout)
	}
	js := e.run("", "hooks", "list", "--json")
	var listed struct {
		Hooks []struct {
			RepositoryFiles []string `json:"repository_files"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &listed); err != nil || len(listed.Hooks) != 1 ||
		len(listed.Hooks[0].RepositoryFiles) != 1 || !strings.HasSuffix(listed.Hooks[0].RepositoryFiles[0], "scripts/lint-changed") {
		t.Errorf("hooks list --json: %v %s", err, js.stdout)
	}

	// A hook that runs the build is said to (the model may edit the
	// Makefile without a question).
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "make -s test >&2 || exit 2"}}}}},
	})
	if list := e.run("", "hooks", "list"); !strings.Contains(list.stdout, "runs the repository's build (make)") {
		t.Errorf("hooks list does not say the Stop hook runs the build:\n%s", list.stdout)
	}
}
