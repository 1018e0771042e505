package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EGitStatusSurvivesAResume: a session resumed by `agent run -c` in
// a repository that changed sends the system messages of its start and the
// new git status in the turn's message; the next resume sends that message
// again byte for byte, so each process's request extends the one before
// (the provider's cache holds across processes).
func TestE2EGitStatusSurvivesAResume(t *testing.T) {
	e := newEnv(t, pt.Text("one"), pt.Text("two"), pt.Text("three"))
	gitRepo(t, e)
	for i, args := range [][]string{{"run", "first"}, {"run", "-c", "second"}, {"run", "-c", "third"}} {
		if i == 1 {
			if err := os.WriteFile(filepath.Join(e.work, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("agent %v: exit %d\n%s", args, res.code, res.stderr)
		}
	}
	var steps [][]string // each step request's messages as sent
	for _, r := range e.srv.Requests() {
		var b struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if len(r.Chat.Messages) == 0 || !strings.HasPrefix(r.Chat.Messages[0].Content, "You are agent") {
			continue // a title's
		}
		var msgs []string
		for _, m := range b.Messages {
			msgs = append(msgs, string(m))
		}
		steps = append(steps, msgs)
	}
	if len(steps) != 3 {
		t.Fatalf("%d step requests, want 3", len(steps))
	}
	for i := 1; i < 3; i++ {
		prev, next := steps[i-1], steps[i]
		if len(next) < len(prev) {
			t.Fatalf("request %d sends fewer messages than request %d", i+1, i)
		}
		for j := range prev {
			if next[j] != prev[j] {
				t.Errorf("request %d's message %d differs from request %d's:\n%s\n%s", i+1, j, i, next[j], prev[j])
			}
		}
	}
	second := steps[1][len(steps[1])-1]
	if !strings.Contains(second, "second") || !strings.Contains(second, "\\u003cenv\\u003e") && !strings.Contains(second, "<env>") || !strings.Contains(second, "M main.go") {
		t.Errorf("the resumed turn's message lacks the new git status:\n%s", second)
	}
	if third := steps[2][len(steps[2])-1]; strings.Contains(third, "env") {
		t.Errorf("the third turn tells an unchanged status again:\n%s", third)
	}
}
