package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// runExecSync runs the editor process on the command's goroutine, as the
// terminal handover of tea.ExecProcess would, for the harness.
func runExecSync(t *testing.T) {
	t.Helper()
	old := execProcess
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		return func() tea.Msg { return fn(c.Run()) }
	}
	t.Cleanup(func() { execProcess = old })
}

// TestCtrlGEditsMessageInEditor: Ctrl+G opens the editor's text in
// $EDITOR and the text saved there replaces it; Enter sends it.
func TestCtrlGEditsMessageInEditor(t *testing.T) {
	runExecSync(t)
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	script := filepath.Join(dir, "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncp \"$1\" "+seen+"\nprintf 'rewritten in vim\\nsecond line\\n' > \"$1\"\n"), 0o755)
	t.Setenv("EDITOR", script)
	h := newHarness(t, []pt.Step{pt.Text("ok")})
	h.typeText("draft")
	h.send(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	h.waitFor("the edited text", func(m *Model) bool { return m.editor.value() == "rewritten in vim\nsecond line" })
	if b, _ := os.ReadFile(seen); string(b) != "draft" {
		t.Errorf("the editor was given %q, want the draft", b)
	}
}

// TestCtrlGWithoutEditorSaysSo: without $EDITOR, Ctrl+G says how to set
// one and the draft stays.
func TestCtrlGWithoutEditorSaysSo(t *testing.T) {
	t.Setenv("EDITOR", "")
	h := newHarness(t, nil)
	h.typeText("draft")
	h.send(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	h.waitScreen("set $EDITOR")
	if v := h.m.editor.value(); v != "draft" {
		t.Errorf("editor = %q, want the draft kept", v)
	}
}

// TestCtrlGFailingEditorKeepsDraft: an editor that fails leaves the draft.
func TestCtrlGFailingEditorKeepsDraft(t *testing.T) {
	runExecSync(t)
	t.Setenv("EDITOR", "false")
	h := newHarness(t, nil)
	h.typeText("draft")
	h.send(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	h.waitScreen("edit message")
	if v := h.m.editor.value(); v != "draft" || !strings.Contains(h.screen(), "false") {
		t.Errorf("editor = %q, want the draft kept; screen:\n%s", v, h.screen())
	}
}

// TestCtrlRSearchesSentMessages: Ctrl+R finds the newest sent message
// holding the typed text, Ctrl+R again an older one, Enter takes it into
// the editor; Esc gives back the draft.
func TestCtrlRSearchesSentMessages(t *testing.T) {
	h := newHarness(t, nil)
	for _, s := range []string{"run the tests", "fix the parser", "run the linter"} {
		h.m.editor.remember(s)
	}
	ctrlR := tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	h.typeText("draft")
	h.send(ctrlR)
	h.typeText("RUN")
	if v := h.m.editor.value(); v != "run the linter" {
		t.Fatalf("after typing run: editor = %q, want the newest match", v)
	}
	if !strings.Contains(h.screen(), "reverse-i-search)`RUN'") {
		t.Errorf("no search line on the screen:\n%s", h.screen())
	}
	h.send(ctrlR)
	if v := h.m.editor.value(); v != "run the tests" {
		t.Fatalf("after ctrl+r: editor = %q, want the older match", v)
	}
	h.key("enter")
	if v := h.m.editor.value(); v != "run the tests" || strings.Contains(h.screen(), "reverse-i-search") {
		t.Fatalf("after enter: editor = %q, want the match taken and the search closed", v)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("enter in the search sent %d requests, want it only to take the match", n)
	}

	h.m.editor.reset()
	h.typeText("keep me")
	h.send(ctrlR)
	h.typeText("parser")
	if v := h.m.editor.value(); v != "fix the parser" {
		t.Fatalf("editor = %q, want fix the parser", v)
	}
	h.key("esc")
	if v := h.m.editor.value(); v != "keep me" {
		t.Errorf("after esc: editor = %q, want the draft back", v)
	}
	h.send(ctrlR)
	h.typeText("zzz")
	if !strings.Contains(h.screen(), "failing reverse-i-search") {
		t.Errorf("no failing search shown:\n%s", h.screen())
	}
}

// TestViModeEditsInNormalMode: with ui.vi, Esc goes to normal mode where
// the vi keys move and edit instead of typing; i, a, A and o go back to
// insert; Enter still sends.
func TestViModeEditsInNormalMode(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("ok")})
	h.m.editor.vi.on = true
	h.typeText("hello world")
	h.key("esc")
	if !strings.Contains(h.screen(), "N hello world") {
		t.Errorf("normal mode not shown in the prompt:\n%s", h.screen())
	}
	if h.m.busy || len(h.srv.Requests()) != 0 {
		t.Fatal("esc did something else than enter normal mode")
	}
	h.typeText("0x")
	if v := h.m.editor.value(); v != "ello world" {
		t.Fatalf("0x: editor = %q", v)
	}
	h.typeText("wiX")
	if v := h.m.editor.value(); v != "ello Xworld" {
		t.Fatalf("w i X: editor = %q", v)
	}
	h.key("esc")
	h.typeText("$aY")
	if v := h.m.editor.value(); v != "ello XworldY" {
		t.Fatalf("$ a Y: editor = %q", v)
	}
	h.key("esc")
	h.typeText("0AZ")
	if v := h.m.editor.value(); v != "ello XworldYZ" {
		t.Fatalf("0 A Z: editor = %q", v)
	}
	h.key("esc")
	h.typeText("onext")
	if v := h.m.editor.value(); v != "ello XworldYZ\nnext" {
		t.Fatalf("o next: editor = %q", v)
	}
	h.key("esc")
	h.typeText("kddq") // q is not a vi key here: nothing typed
	if v := h.m.editor.value(); v != "next" {
		t.Fatalf("k dd: editor = %q", v)
	}
	h.typeText("$a!")
	h.key("esc")
	h.typeText("0lx")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	msgs := h.srv.Requests()[0].Chat.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "nxt!") {
		t.Errorf("sent %q, want the edited text", got)
	}
	if h.m.editor.vi.normal {
		t.Error("the next message does not start in insert mode")
	}
}

func TestViWordMotions(t *testing.T) {
	line := []rune("go  test ./...")
	for _, c := range []struct{ col, fwd, back int }{
		{0, 4, 0}, {1, 4, 0}, {4, 9, 0}, {6, 9, 4}, {9, 14, 4}, {14, 14, 9},
	} {
		if got := wordForward(line, c.col); got != c.fwd {
			t.Errorf("w from %d = %d, want %d", c.col, got, c.fwd)
		}
		if got := wordBack(line, c.col); got != c.back {
			t.Errorf("b from %d = %d, want %d", c.col, got, c.back)
		}
	}
}
