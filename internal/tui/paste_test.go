package tui

import (
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
