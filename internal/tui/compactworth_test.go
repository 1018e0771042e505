package tui

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestCompactOfAShortConversationSaysThereIsNothingToCompact: /compact
// after two short turns asked for summaries, showed them as rejected
// ("the summary is longer than what it replaces") and dropped a turn
// (hardening 2, item 9c). Now no request is made and one info line says
// there is nothing to compact yet, and why.
func TestCompactOfAShortConversationSaysThereIsNothingToCompact(t *testing.T) {
	summary := "## Goal\nship\n\n" + strings.Repeat("detail ", 400)
	h := newHarness(t, []pt.Step{pt.Text("short answer"), pt.Text("another"), pt.Text(summary), pt.Text(summary)})
	for _, s := range []string{"one", "two"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "▌ "+s) })
	}
	h.typeText("/compact")
	h.key("enter")
	h.waitScreen("nothing to compact yet: the 2 messages a summary would replace")
	h.waitFor("the compaction to end", func(m *Model) bool { return !m.compacting })
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests: a summary was asked for", n)
	}
	s := h.screen()
	for _, bad := range []string{"rejected", "compacted without a summary", "compact:"} {
		if strings.Contains(s, bad) {
			t.Errorf("the screen says %q:\n%s", bad, s)
		}
	}
	for _, it := range h.m.chat.items {
		if n, ok := it.(*noticeItem); ok && n.kind == noticeError {
			t.Errorf("an error notice: %q", n.text)
		}
	}
}
