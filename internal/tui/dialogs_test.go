package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// lastToolResult is the content of the last tool message of a request.
func lastToolResult(req pt.Request) string {
	msgs := req.Chat.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

// TestTypingWhileAPermissionDialogOpensApprovesNothing: the "a" of "add"
// used to approve the call (issue 14.1); the text now goes to the editor
// and the question waits.
func TestTypingWhileAPermissionDialogOpensApprovesNothing(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"touch SHOULD_NOT_EXIST"}`), pt.Text("fine")})
	h.typeText("go")
	h.key("enter")
	h.waitScreen("Permission")
	h.typeText("add s")
	// Past the grace period too: letters are never answers.
	h.waitFor("the dialog to take its keys", func(m *Model) bool { return m.questions.Armed() })
	h.typeText("ome tests")
	if v := h.m.editor.value(); v != "add some tests" {
		t.Errorf("editor holds %q, want every key typed", v)
	}
	if h.m.questions.Len() != 1 {
		t.Fatalf("the dialog was answered by typing")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "SHOULD_NOT_EXIST")); err == nil {
		t.Fatal("the command ran")
	}
	if !strings.Contains(h.screen(), "add some tests") {
		t.Errorf("the typed text is not on screen:\n%s", h.screen())
	}
	h.key("alt+d")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if _, err := os.Stat(filepath.Join(h.dir, "SHOULD_NOT_EXIST")); err == nil {
		t.Fatal("the command ran after a denial")
	}
	if v := h.m.editor.value(); v != "add some tests" {
		t.Errorf("editor holds %q after the answer", v)
	}
}

// TestDenyWithAReasonTellsTheModel: the one-line reason is the tool's
// result in the next request (issue 14.8).
func TestDenyWithAReasonTellsTheModel(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"go test ./..."}`), pt.Text("will use make")})
	h.typeText("test it")
	h.key("enter")
	h.waitScreen("tab answers here")
	h.key("alt+d")
	h.waitScreen("enter denies")
	h.typeText("use make test instead")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if got := lastToolResult(h.srv.Requests()[1]); !strings.Contains(got, "The user said: use make test instead") {
		t.Errorf("tool result %q lacks the reason", got)
	}
	if h.m.editor.value() != "" {
		t.Errorf("the reason leaked into the editor: %q", h.m.editor.value())
	}
}

// TestDenyAndStopEndsTheTurn: the calls after the denied one are not run
// and the model is not called again (issue 14.1).
func TestDenyAndStopEndsTheTurn(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCalls(pt.Call{ID: "c1", Name: "bash", Args: `{"command":"touch one"}`}, pt.Call{ID: "c2", Name: "bash", Args: `{"command":"touch two"}`}),
		pt.Text("after the stop"),
		pt.Text("next turn"),
	})
	h.typeText("do both")
	h.key("enter")
	h.waitScreen("tab answers here")
	h.key("alt+x")
	h.key("enter")
	h.waitFor("the turn to end", func(m *Model) bool { return idle(m) })
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests: the turn went on after the stop", n)
	}
	for _, f := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(h.dir, f)); err == nil {
			t.Errorf("%s was run", f)
		}
	}
	if h.m.questions.Len() != 0 {
		t.Error("a second question was asked after the stop")
	}
	// The next message carries on, with both results in the history.
	h.typeText("carry on")
	h.key("enter")
	h.waitFor("the next turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	body := string(h.srv.Requests()[1].Body)
	if !strings.Contains(body, "stopped the turn") || !strings.Contains(body, "Not run: the user stopped the turn.") {
		t.Errorf("the next request lacks the stop's results: %.600s", body)
	}
}

// TestEditDialogShowsTheDiffBeforeConsent (issue 14.2).
func TestEditDialogShowsTheDiffBeforeConsent(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "read", `{"path":"greet.go"}`),
		pt.ToolCall("c2", "edit", `{"path":"greet.go","old_string":"return \"hello\"","new_string":"return \"goodbye\""}`),
		pt.Text("edited"),
	})
	file := filepath.Join(h.dir, "greet.go")
	if err := os.WriteFile(file, []byte("package greet\n\nfunc Greet() string {\n\treturn \"hello\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.typeText("change the greeting")
	h.key("enter")
	h.waitScreen("tab answers here")
	s := h.screen()
	for _, want := range []string{`\b4 +- +return "hello"`, `\b4 \+ +return "goodbye"`} {
		if !regexp.MustCompile(want).MatchString(s) {
			t.Errorf("dialog lacks %s:\n%s", want, s)
		}
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "goodbye") {
		t.Fatal("the edit was applied before consent")
	}
	h.key("alt+a")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 3 })
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "goodbye") {
		t.Errorf("the approved edit was not applied: %q", b)
	}
}

func TestPermissionDialogAllowsForSession(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "bash", `{"command":"echo first-run"}`),
		pt.ToolCall("c2", "bash", `{"command":"echo second-run"}`),
		pt.Text("all done"),
	})
	h.typeText("run it")
	h.key("enter")
	h.waitScreen("Permission")
	// A key typed as the question appears goes to the editor.
	h.key("s")
	if h.m.questions.Len() != 1 || h.m.editor.value() != "s" {
		t.Fatalf("a key typed as the dialog appeared: %d dialogs, editor %q", h.m.questions.Len(), h.m.editor.value())
	}
	h.key("backspace")
	h.waitScreen("tab answers here")
	s := h.screen()
	for _, want := range []string{"echo first-run", "allow once", "allow echo for this session", "deny"} {
		if !strings.Contains(s, want) {
			t.Errorf("dialog lacks %q:\n%s", want, s)
		}
	}
	h.key("alt+s")
	// The second call is granted by the session grant: no second dialog.
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 3 })
	h.waitScreen("all done")
	s = h.screen()
	if strings.Contains(s, "Permission") || !strings.Contains(s, "first-run") || !strings.Contains(s, "second-run") {
		t.Errorf("after approval:\n%s", s)
	}
	if strings.Count(s, "✓ bash") != 2 {
		t.Errorf("want two completed bash cards:\n%s", s)
	}
}

// TestPermissionDialogListsSimpleCommands: a command hidden in a case arm
// or loop body is shown (issue 11.5), and the session button names the
// commands, not the keywords.
func TestPermissionDialogListsSimpleCommands(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "bash", `{"command":"case x in x) touch hidden-file;; esac"}`),
		pt.Text("all done"),
	})
	h.typeText("run it")
	h.key("enter")
	h.waitScreen("tab answers here")
	s := h.screen()
	for _, want := range []string{"which runs:", "• touch hidden-file", "allow touch for this session"} {
		if !strings.Contains(s, want) {
			t.Errorf("dialog lacks %q:\n%s", want, s)
		}
	}
	h.key("alt+d")
	h.key("enter")
	h.waitScreen("all done")
}

func TestPermissionDialogDenies(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"touch denied-file"}`), pt.Text("ok, not run")})
	h.typeText("run it")
	h.key("enter")
	h.waitScreen("tab answers here")
	// Tab gives the dialog focus; → → highlights deny; enter opens the
	// reason, which may stay empty.
	h.key("tab")
	h.key("right")
	h.key("right")
	h.key("enter")
	h.waitScreen("enter denies")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if !strings.Contains(h.screen(), "✗ bash") {
		t.Errorf("denied call not shown as an error:\n%s", h.screen())
	}
	msgs := h.srv.Requests()[1].Chat.Messages
	if !strings.Contains(msgs[len(msgs)-1].Content, "declined") {
		t.Errorf("model not told of the denial: %q", msgs[len(msgs)-1].Content)
	}
}

func TestDoomDialogContinues(t *testing.T) {
	call := pt.ToolCall("c", "ls", `{"path":"."}`)
	h := newHarness(t, []pt.Step{call, call, call, pt.Text("stopped looping")})
	h.typeText("list")
	h.key("enter")
	h.waitScreen("alt+c/s/a")
	if !strings.Contains(h.screen(), "continue") || !strings.Contains(h.screen(), "always allow") {
		t.Errorf("doom dialog:\n%s", h.screen())
	}
	h.key("alt+c")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 4 })
	h.waitScreen("stopped looping")
}

func TestEscWhileAskingClosesTheDialogWithTheTurn(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"echo x"}`)})
	h.typeText("run")
	h.key("enter")
	h.waitScreen("Permission")
	// Cancel the turn by the runner to check a question left open is
	// dropped.
	if _, err := h.m.runner.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the dialog to go", func(m *Model) bool { return idle(m) && m.questions.Len() == 0 })
}

// TestPermissionDialogSaysWhoAsks: a call from a subagent's session says
// in the dialog that the subagent asks, not the session's own model.
func TestPermissionDialogSaysWhoAsks(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "bash", `{"command":"touch sub-file"}`),
		pt.Text("all done"),
	}, func(o *Options) { o.Loop.AskFrom = "the subagent “fix the tests”" })
	h.typeText("run it")
	h.key("enter")
	h.waitScreen("tab answers here")
	if s := h.screen(); !strings.Contains(s, "asked by the subagent “fix the tests”") {
		t.Errorf("dialog does not say who asks:\n%s", s)
	}
	h.key("alt+d")
	h.key("enter")
	h.waitScreen("all done")
}
