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

// diffShower is an answerAsker that shows its own diffs.
type diffShower struct{ answerAsker }

func (*diffShower) ShowsOwnDiffs() bool { return true }

// TestNoDiffForAnAskerThatShowsItsOwn: the diff is worked out once: an
// asker that shows its own (the ACP server's) gets no Request.Diff, and
// the file is not read for one; the question is still asked.
func TestNoDiffForAnAskerThatShowsItsOwn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &diffShower{answerAsker{ans: Answer{Reply: Deny}}}
	p := NewPermissions(nil, a, false)
	call := mkCall("edit", map[string]any{"path": "a.txt", "old_string": "old", "new_string": "new"})
	if ok, _, err := p.Check(context.Background(), &Env{Dir: dir}, call); ok || err != nil {
		t.Fatalf("ok %v err %v, want a denial", ok, err)
	}
	if len(a.asked) != 1 || a.asked[0].Diff != "" {
		t.Fatalf("asked %+v; want one question without a diff", a.asked)
	}
}

// TestPreviewChangeIsTheToolsRule: PreviewChange refuses what the edit
// tool refuses, expands ~/ as the tools do, and tells a new file apart.
func TestPreviewChangeIsTheToolsRule(t *testing.T) {
	read := func(text string, exists bool) func(string) (string, bool, error) {
		return func(string) (string, bool, error) { return text, exists, nil }
	}
	home, _ := os.UserHomeDir()
	for _, c := range []struct {
		name   string
		call   Call
		read   func(string) (string, bool, error)
		ok     bool
		newTxt string
	}{
		{"ambiguous", mkCall("edit", map[string]any{"path": "a", "old_string": "x", "new_string": "y"}), read("x x", true), false, ""},
		{"all", mkCall("edit", map[string]any{"path": "a", "old_string": "x", "new_string": "y", "replace_all": true}), read("x x", true), true, "y y"},
		{"crlf", mkCall("edit", map[string]any{"path": "a", "old_string": "a\nb", "new_string": "c"}), read("a\r\nb\r\n", true), true, "c\r\n"},
		{"create over text", mkCall("edit", map[string]any{"path": "a", "old_string": "", "new_string": "y"}), read("x", true), false, ""},
		{"create", mkCall("edit", map[string]any{"path": "a", "old_string": "", "new_string": "y"}), read("", false), true, "y"},
		{"write", mkCall("write", map[string]any{"path": "a", "content": "z"}), read("x", true), true, "z"},
		{"other tool", mkCall("read", map[string]any{"path": "a"}), read("x", true), false, ""},
	} {
		c.call.Input = append([]byte(nil), c.call.Input...)
		got, ok := PreviewChange("/p", c.call, c.read)
		if ok != c.ok || ok && (got.New != c.newTxt || got.Path != "/p/a") {
			t.Errorf("%s: %+v, %v; want %v, new %q", c.name, got, ok, c.ok, c.newTxt)
		}
	}
	if home != "" {
		got, _ := PreviewChange("/p", mkCall("write", map[string]any{"path": "~/n", "content": "z"}), read("", false))
		if got.Path != filepath.Join(home, "n") || got.Exists {
			t.Errorf("~/n: %+v", got)
		}
	}
}
