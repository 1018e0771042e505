package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// writeJSON writes v as JSON to path, making its directory.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestE2EHooksUserRunProjectNeedsApproval(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("c1", "bash", `{"command":"rm -rf build"}`), pt.Text("could not delete"),
		pt.Text("second run"))
	logDir := t.TempDir()
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "timeout": 10,
			"command": `cat > "` + logDir + `/pre.json"; env > "` + logDir + `/env.txt"; echo "no deleting here" >&2; exit 2`}}}},
	}})
	writeJSON(t, filepath.Join(e.work, ".agent", "config.json"), map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch project-hook-ran"}}}},
	}})

	res := e.run("", "run", "--yes", "--format", "json", "clean up")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "declares hooks (Stop) that are not approved") || !strings.Contains(res.stderr, "agent hooks approve") {
		t.Errorf("stderr lacks the approval warning: %s", res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.work, "project-hook-ran")); err == nil {
		t.Fatal("an unapproved project hook ran")
	}
	var hookEv map[string]any
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] == "hook" {
			hookEv = ev
		}
	}
	if hookEv == nil || hookEv["event"] != "PreToolUse" || hookEv["blocked"] != true || hookEv["output"] != "no deleting here" ||
		hookEv["exit_code"] != 2.0 || hookEv["tool"] != "bash" {
		t.Errorf("hook event = %v", hookEv)
	}
	if got := e.srv.Requests()[1].Chat.Messages; !strings.Contains(got[len(got)-1].Content, "no deleting here") {
		t.Errorf("the model was not told: %q", got[len(got)-1].Content)
	}
	pre, err := os.ReadFile(filepath.Join(logDir, "pre.json"))
	if err != nil || !strings.Contains(string(pre), `"tool_name":"Bash"`) {
		t.Errorf("PreToolUse stdin = %s (%v)", pre, err)
	}
	if envText, _ := os.ReadFile(filepath.Join(logDir, "env.txt")); strings.Contains(string(envText), testKey) ||
		!strings.Contains(string(envText), "CLAUDE_PROJECT_DIR=") {
		t.Errorf("hook environment: key present %v", strings.Contains(string(envText), testKey))
	}

	list := e.run("", "hooks", "list", "--json")
	var listed struct {
		ProjectFile string `json:"project_file"`
		Hooks       []struct {
			Event, Source  string
			Approved, Runs bool
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(list.stdout), &listed); err != nil || len(listed.Hooks) != 2 {
		t.Fatalf("hooks list --json: %v %s", err, list.stdout)
	}
	if h := listed.Hooks[1]; h.Event != "Stop" || h.Source != "project" || h.Approved || h.Runs {
		t.Errorf("project hook listed as %+v", h)
	}
	if text := e.run("", "hooks", "list"); !strings.Contains(text.stdout, "not approved") || !strings.Contains(text.stdout, "touch project-hook-ran") {
		t.Errorf("hooks list:\n%s", text.stdout)
	}
	if bad := e.run("", "hooks", "approve", "PreToolUse"); bad.code != 2 {
		t.Errorf("approving an event the project does not declare: exit %d %s", bad.code, bad.stderr)
	}
	if ok := e.run("", "hooks", "approve"); ok.code != 0 || !strings.Contains(ok.stdout, "touch project-hook-ran") {
		t.Fatalf("hooks approve: exit %d %s %s", ok.code, ok.stdout, ok.stderr)
	}

	res = e.run("", "run", "again")
	if res.code != 0 || strings.Contains(res.stderr, "not approved") {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.work, "project-hook-ran")); err != nil {
		t.Error("the approved project hook did not run")
	}
}

// TestE2EBlockedFirstPromptLeavesNoSession checks a run whose first
// message a UserPromptSubmit hook blocks: nothing reaches the model,
// nothing is stored (the new session's row waits for its first message),
// and the done event names no session that does not exist.
func TestE2EBlockedFirstPromptLeavesNoSession(t *testing.T) {
	e := newEnv(t, pt.Text("never sent"))
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{"hooks": map[string]any{
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `echo "no secrets in prompts" >&2; exit 2`}}}},
	}})
	res := e.run("", "run", "--format", "json", "here is my password")
	if res.code != exitFailure {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d requests made", n)
	}
	var done map[string]any
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] == "done" {
			done = ev
		}
	}
	if done == nil || done["session_id"] != "" || !strings.Contains(fmt.Sprint(done["error"]), "no secrets in prompts") {
		t.Fatalf("done = %v", done)
	}
	if list := e.run("", "sessions", "--json"); list.code != 0 || strings.TrimSpace(list.stdout) != "[]" {
		t.Fatalf("sessions after a blocked first prompt: %q (exit %d)", list.stdout, list.code)
	}
}
