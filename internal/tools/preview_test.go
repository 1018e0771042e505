package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// answerAsker answers with a full Answer and records the requests.
type answerAsker struct {
	ans   Answer
	asked []Request
}

func (a *answerAsker) Ask(ctx context.Context, req Request) (Reply, error) {
	panic("Permissions must prefer AskAnswer")
}

func (a *answerAsker) AskAnswer(ctx context.Context, req Request) (Answer, error) {
	a.asked = append(a.asked, req)
	return a.ans, nil
}

// TestPermissionRequestCarriesTheDiffBeforeConsent: the dialog of an edit
// or a write gets the diff the call would make, and nothing is written
// while asking (issue 14.2).
func TestPermissionRequestCarriesTheDiffBeforeConsent(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte("package main\n\nfunc old() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &answerAsker{ans: Answer{Reply: Deny}}
	p := NewPermissions(nil, a, false)
	env := &Env{Dir: dir}
	for _, c := range []struct {
		call Call
		want []string
	}{
		{mkCall("edit", map[string]any{"path": "main.go", "old_string": "func old() {}", "new_string": "func renamed() {}"}),
			[]string{"-func old() {}", "+func renamed() {}", "main.go"}},
		{mkCall("write", map[string]any{"path": "new.txt", "content": "hello\n"}), []string{"+hello"}},
		{mkCall("edit", map[string]any{"path": "main.go", "old_string": "not there", "new_string": "x"}), nil},
	} {
		a.asked = nil
		if ok, _, err := p.Check(context.Background(), env, c.call); ok || err != nil {
			t.Fatalf("%s: ok %v err %v, want a denial", c.call.Name, ok, err)
		}
		if len(a.asked) != 1 {
			t.Fatalf("%s: asked %d times", c.call.Name, len(a.asked))
		}
		diff := a.asked[0].Diff
		if c.want == nil && diff != "" {
			t.Errorf("a failing edit previews a diff:\n%s", diff)
		}
		for _, w := range c.want {
			if !strings.Contains(diff, w) {
				t.Errorf("%s: diff lacks %q:\n%s", c.call.Name, w, diff)
			}
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "package main\n\nfunc old() {}\n" {
		t.Errorf("previewing changed the file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("previewing a write created the file")
	}
}

// TestDenialCarriesTheReasonAndStopsTheTurn: the user's reason is the
// tool result, and "deny and stop" is reported once (issue 14.1).
func TestDenialCarriesTheReasonAndStopsTheTurn(t *testing.T) {
	a := &answerAsker{ans: Answer{Reply: Deny, Reason: "use  make test\ninstead"}}
	p := NewPermissions(nil, a, false)
	env := &Env{Dir: t.TempDir()}
	ok, denial, err := p.Check(context.Background(), env, mkCall("bash", map[string]any{"command": "go test ./..."}))
	if ok || err != nil || !strings.Contains(denial, "The user said: use make test instead") {
		t.Fatalf("ok %v err %v denial %q", ok, err, denial)
	}
	if p.TakeStopTurn() {
		t.Error("a plain denial stops the turn")
	}
	a.ans = Answer{Reply: Deny, StopTurn: true}
	_, denial, _ = p.Check(context.Background(), env, mkCall("bash", map[string]any{"command": "go test ./..."}))
	if !strings.Contains(denial, "stopped the turn") {
		t.Errorf("denial %q does not say the turn stopped", denial)
	}
	if !p.TakeStopTurn() || p.TakeStopTurn() {
		t.Error("TakeStopTurn must report a stop once")
	}
}
