package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Issue 11: the tools hardening, driven through the real binary.

// writeUserConfig writes the user config file of e.
func (e *env) writeUserConfig(cfg string) {
	e.t.Helper()
	path := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// toolResults returns the tool_result events of a JSON run by call id.
func toolResults(t *testing.T, stdout string) map[string]map[string]any {
	t.Helper()
	results := map[string]map[string]any{}
	for _, ev := range jsonEvents(t, stdout) {
		if ev["type"] == "tool_result" {
			id, _ := ev["id"].(string)
			results[id] = ev
		}
	}
	return results
}

// TestE2EDanglingSymlinkWriteAsks: with write and edit allowed and no
// --yes, a write through a dangling symlink whose target is outside the
// directory (as a cloned repository can carry) is refused as an outside
// path, and the outside file is not created; an ordinary write inside
// still runs without a question.
func TestE2EDanglingSymlinkWriteAsks(t *testing.T) {
	e := newEnv(t,
		pt.ToolCalls(
			pt.Call{ID: "call_abs", Name: "write", Args: `{"path":"notes.md","content":"ssh-ed25519 AAAA attacker\n"}`},
			pt.Call{ID: "call_rel", Name: "edit", Args: `{"path":"docs/rel.md","old_string":"","new_string":"pwned\n"}`},
			pt.Call{ID: "call_in", Name: "write", Args: `{"path":"inside.md","content":"fine\n"}`},
		),
		pt.Text("Done."),
	)
	e.writeUserConfig(`{"permissions": {"write": "allow", "edit": "allow"}}`)
	outside := t.TempDir()
	keys := filepath.Join(outside, ".ssh", "authorized_keys") // .ssh exists, authorized_keys not yet
	if err := os.Mkdir(filepath.Join(outside, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keys, filepath.Join(e.work, "notes.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.work, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	relTarget, _ := filepath.Rel(filepath.Join(e.work, "docs"), filepath.Join(outside, "rel.md"))
	if err := os.Symlink(relTarget, filepath.Join(e.work, "docs", "rel.md")); err != nil {
		t.Fatal(err)
	}

	res := e.run("", "run", "--format", "json", "take notes")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, p := range []string{keys, filepath.Join(outside, "rel.md")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created outside the directory", p)
		}
	}
	results := toolResults(t, res.stdout)
	for _, id := range []string{"call_abs", "call_rel"} {
		r := results[id]
		out, _ := r["output"].(string)
		if r["is_error"] != true || !strings.Contains(out, "permission denied") || !strings.Contains(out, "outside the session directory") {
			t.Errorf("%s: result %v", id, r)
		}
	}
	if r := results["call_in"]; r["is_error"] != false {
		t.Errorf("the write inside was not run: %v", r)
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "inside.md")); err != nil || string(b) != "fine\n" {
		t.Errorf("inside.md = %q, %v", b, err)
	}
}

// TestE2EGitConfigWriteAsks: with write allowed and no --yes, the model
// cannot write .git/config (core.fsmonitor would run a command on the next
// git status); with --yes, the user's explicit choice, it can.
func TestE2EGitConfigWriteAsks(t *testing.T) {
	read := pt.ToolCall("call_read", "read", `{"path":".git/config"}`)
	write := pt.ToolCall("call_git", "write", `{"path":".git/config","content":"[core]\n\tfsmonitor = touch pwned\n"}`)
	e := newEnv(t, read, write, pt.Text("Done."), read, write, pt.Text("Done."))
	e.writeUserConfig(`{"permissions": {"write": "allow"}}`)
	config := filepath.Join(e.work, ".git", "config")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	res := e.run("", "run", "--format", "json", "configure git")
	r := toolResults(t, res.stdout)["call_git"]
	out, _ := r["output"].(string)
	if res.code != 0 || r["is_error"] != true || !strings.Contains(out, "permission denied") || !strings.Contains(out, ".git directory") {
		t.Errorf("exit %d, result %v, stderr %s", res.code, r, res.stderr)
	}
	if b, _ := os.ReadFile(config); string(b) != "[core]\n" {
		t.Fatalf(".git/config was written: %q", b)
	}

	res = e.run("", "run", "--yes", "--format", "json", "configure git")
	if r := toolResults(t, res.stdout)["call_git"]; res.code != 0 || r["is_error"] != false {
		t.Errorf("--yes: exit %d, result %v", res.code, r)
	}
}
