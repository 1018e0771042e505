package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// The chat a demanding user trusts (issue 14), driven in tmux like
// tui_e2e_test.go: approvals that cannot be typed through, diffs before
// consent, a denial's reason, pastes with CR line endings, the welcome
// screen.

// lastToolContent is the content of the last tool message of a request.
func lastToolContent(req pt.Request) string {
	msgs := req.Chat.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

func TestE2EChatTypingThroughAPermissionDialogApprovesNothing(t *testing.T) {
	e := newEnv(t, pt.ToolCall("call_1", "bash", `{"command":"touch SHOULD_NOT_EXIST"}`), pt.Text("not run then"))
	s := startTUI(t, e)
	s.send("start")
	// The user keeps typing as the question opens, and after.
	s.typeText("add so")
	s.waitText("tab answers here")
	s.typeText("me tests")
	screen := s.waitText("› add some tests")
	if _, err := os.Stat(filepath.Join(e.work, "SHOULD_NOT_EXIST")); err == nil {
		t.Fatalf("typing approved the command:\n%s", screen)
	}
	if !strings.Contains(screen, "Permission") {
		t.Fatalf("the dialog closed under the typing:\n%s", screen)
	}
	s.keys("M-d")
	s.waitText("enter denies")
	s.keys("Enter")
	s.waitText("not run then")
	screen = s.idle()
	if _, err := os.Stat(filepath.Join(e.work, "SHOULD_NOT_EXIST")); err == nil {
		t.Fatal("the denied command ran")
	}
	if !strings.Contains(screen, "› add some tests") {
		t.Errorf("the typed text left the editor:\n%s", screen)
	}
}

func TestE2EChatEditShowsItsDiffBeforeApproval(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_1", "read", `{"path":"greet.go"}`),
		pt.ToolCall("call_2", "edit", `{"path":"greet.go","old_string":"return \"hello\"","new_string":"return \"goodbye\""}`),
		pt.Text("greeting changed"),
	)
	file := filepath.Join(e.work, "greet.go")
	if err := os.WriteFile(file, []byte("package greet\n\nfunc Greet() string {\n\treturn \"hello\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTUI(t, e)
	s.send("change the greeting")
	screen := s.waitText("tab answers here")
	for _, re := range []string{`\b4 +- +return "hello"`, `\b4 \+ +return "goodbye"`} {
		if !regexp.MustCompile(re).MatchString(screen) {
			t.Errorf("the dialog lacks %s:\n%s", re, screen)
		}
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "goodbye") {
		t.Fatal("edited before consent")
	}
	s.keys("M-a")
	s.waitText("greeting changed")
	s.idle()
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "goodbye") {
		t.Errorf("the approved edit was not applied: %q", b)
	}
}

func TestE2EChatDenyWithAReasonReachesTheModel(t *testing.T) {
	e := newEnv(t, pt.ToolCall("call_1", "bash", `{"command":"rm -rf build"}`), pt.Text("understood"))
	s := startTUI(t, e)
	s.send("clean up")
	s.waitText("tab answers here")
	s.keys("M-d")
	s.waitText("enter denies")
	s.typeText("keep the build directory")
	s.keys("Enter")
	s.waitText("understood")
	s.idle()
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := lastToolContent(reqs[1]); !strings.Contains(got, "The user said: keep the build directory") {
		t.Errorf("the tool result %q lacks the reason", got)
	}
}

// TestE2EChatCRPastesKeepTheirLines: tmux sends a paste with CR between
// lines (paste-buffer replaces LF by CR), or CRLF verbatim with -r.
func TestE2EChatCRPastesKeepTheirLines(t *testing.T) {
	lines := make([]string, 300)
	for i := range lines {
		lines[i] = fmt.Sprintf("row %03d", i+1)
	}
	for _, c := range []struct {
		name, content string
		flags         []string
	}{
		{"CRLF", strings.Join(lines, "\r\n"), []string{"-r"}},
		{"CR", strings.Join(lines, "\n"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, pt.Text("pasted"))
			s := startTUI(t, e)
			buf := filepath.Join(t.TempDir(), "paste.txt")
			if err := os.WriteFile(buf, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s.tmux("load-buffer", buf)
			s.tmux(append([]string{"paste-buffer", "-p", "-t", "main"}, c.flags...)...)
			s.waitText("300 lines")
			s.keys("Enter")
			s.waitText("pasted")
			s.idle()
			reqs := e.srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if got := lastUser(reqs[0]); got != strings.Join(lines, "\n") {
				t.Errorf("sent %d lines (CR kept: %v), want 300", strings.Count(got, "\n")+1, strings.Contains(got, "\r"))
			}
		})
	}
}

func TestE2EChatWelcomeShowsTheBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t, pt.Text("hello"))
	if out, err := exec.Command("git", "init", "-q", "-b", "e2e-welcome-branch", e.work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	s := startTUI(t, e)
	screen := s.waitText("e2e-welcome-branch")
	for _, want := range []string{e.work, "gpt-4.1", e.srv.URL, "/context", "/compact"} {
		if !strings.Contains(screen, want) {
			t.Errorf("welcome lacks %q:\n%s", want, screen)
		}
	}
	s.send("hi")
	s.waitText("hello")
	if screen := s.idle(); strings.Contains(screen, "e2e-welcome-branch") {
		t.Errorf("the welcome stayed after the first message:\n%s", screen)
	}
}
