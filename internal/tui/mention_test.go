package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestMentionCompletesAndAttaches: "@" offers the directory's files; tab
// inserts the chosen one; the sent message carries the file's content and
// shows a chip; a missing file shows an error chip and the message is sent.
func TestMentionCompletesAndAttaches(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("read it"), pt.Text("noted")})
	os.WriteFile(filepath.Join(h.dir, "notes.md"), []byte("the secret plan\n"), 0o644)
	os.MkdirAll(filepath.Join(h.dir, "src"), 0o755)
	os.WriteFile(filepath.Join(h.dir, "src", "main.go"), []byte("package main\n"), 0o644)
	h.typeText("look at @nots")
	h.waitScreen(" @notes.md")
	h.key("tab")
	if v := h.m.editor.value(); v != "look at @notes.md " {
		t.Fatalf("editor after tab: %q", v)
	}
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.waitScreen("⎘ @notes.md")
	msgs := h.srv.Requests()[0].Chat.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "the secret plan") {
		t.Errorf("the request lacks the file:\n%s", got)
	}
	h.typeText("and @missing.txt too")
	h.key("esc") // the popup offers nothing for it; esc is harmless
	h.key("enter")
	h.waitFor("the second reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	h.waitScreen("✗ @missing.txt")
	msgs = h.srv.Requests()[1].Chat.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "and @missing.txt too") || !strings.Contains(got, "could not be attached") {
		t.Errorf("the second request:\n%s", got)
	}
}

// TestBangCommandShowsCardAndReachesNextRequest: !ls runs with no model
// call, shows a bash card with its output, and the output is in the next
// request.
func TestBangCommandShowsCardAndReachesNextRequest(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello"), pt.Text("I see it")})
	os.WriteFile(filepath.Join(h.dir, "marker-file.txt"), nil, 0o644)
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the first reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.typeText("!ls")
	h.key("enter")
	h.waitScreen("marker-file.txt")
	if !strings.Contains(h.screen(), "! ls") {
		t.Errorf("no card titled with the command:\n%s", h.screen())
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests after a !command", n)
	}
	h.typeText("what is there?")
	h.key("enter")
	h.waitFor("the second reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	msgs := h.srv.Requests()[1].Chat.Messages
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, "marker-file.txt") {
		t.Errorf("the output is not in the next request:\n%s", got)
	}
}
