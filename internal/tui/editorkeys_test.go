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
