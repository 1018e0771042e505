package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestHugePasteIsCollapsed pastes 1 MB: the editor shows a placeholder
// (the textarea would re-lay out all of it on every keystroke), the text typed
// around it stays editable, and the whole paste is what gets sent.
func TestHugePasteIsCollapsed(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("got it")})
	// 1 MB fits gpt-4.1's window; 10 MB would not, and would rightly be
	// compacted before it is sent.
	big := strings.Repeat("2026-11-22T03:00:00Z worker-7 retrying job 1234 after timeout\n", (1<<20)/62)
	h.typeText("look at this: ")
	h.send(tea.PasteMsg{Content: big})
	h.typeText(" thanks")
	shown := h.m.editor.value()
	if len(shown) > 200 || !strings.Contains(shown, "[paste #1 · ") || !strings.HasSuffix(shown, " thanks") {
		t.Fatalf("editor shows %d bytes: %.200q", len(shown), shown)
	}
	if !strings.Contains(h.screen(), "[paste #1 · ") {
		t.Error("the placeholder is not on screen")
	}
	// A small paste stays text.
	h.send(tea.PasteMsg{Content: "!"})
	h.key("enter")
	h.waitFor("the request", func(*Model) bool { return len(h.srv.Requests()) > 0 })
	msgs := h.srv.Requests()[0].Chat.Messages
	if got := msgs[len(msgs)-1].Content; got != "look at this: "+big+" thanks!" {
		t.Errorf("sent %d bytes, want the %d-byte paste with the typed text around it", len(got), len(big))
	}
	// History recalls the placeholder, which still expands.
	h.waitFor("the answer", func(m *Model) bool { return !m.busy })
	h.key("up")
	if v := h.m.editor.value(); !strings.Contains(v, "[paste #1 · ") || h.m.editor.expand(v) != "look at this: "+big+" thanks!" {
		t.Errorf("history entry %.100q does not expand to the paste", v)
	}
}

// TestCRLFPasteKeepsItsLines: a paste with CRLF or CR-only line endings
// arrives with its lines (issue 14.7).
func TestCRLFPasteKeepsItsLines(t *testing.T) {
	for _, eol := range []string{"\r\n", "\r"} {
		h := newHarness(t, []pt.Step{pt.Text("got it")})
		lines := make([]string, 300)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d", i+1)
		}
		h.send(tea.PasteMsg{Content: strings.Join(lines, eol)})
		if v := h.m.editor.value(); !strings.Contains(v, "300 lines") {
			t.Errorf("%q: editor shows %.80q, want a 300-line paste", eol, v)
		}
		h.key("enter")
		h.waitFor("the request", func(*Model) bool { return len(h.srv.Requests()) > 0 })
		msgs := h.srv.Requests()[0].Chat.Messages
		if got := msgs[len(msgs)-1].Content; got != strings.Join(lines, "\n") {
			t.Errorf("%q: sent %d lines with CR %v", eol, strings.Count(got, "\n")+1, strings.Contains(got, "\r"))
		}
		h.close()
	}
}

func TestNormalizeNewlines(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb": "a\nb", "a\rb\r": "a\nb\n", "a\nb": "a\nb", "a\r\r\nb": "a\n\nb"} {
		if got := normalizeNewlines(in); got != want {
			t.Errorf("normalizeNewlines(%q) = %q, want %q", in, got, want)
		}
	}
}
