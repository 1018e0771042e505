package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestInlineSendDuringAPrintKeepsOrder forces the interleaving that made
// TestInlinePrintsFinishedItemsInOrder flaky on a loaded machine: the
// first reply's print is held on its way to the terminal (its
// acknowledgement not back), and the next message is sent and its reply
// streams meanwhile. Nothing more is printed while the print is in
// flight; the live region shows the message above the streaming reply;
// once the print is acknowledged the message is printed, and the reply
// only when it has finished, after it.
func TestInlineSendDuringAPrintKeepsOrder(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{
		pt.Text("First reply here.\n\n- alpha\n"),
		pt.Reply(pt.TextChunk("partial second"), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
	}, inlineMode)
	// The print of the first reply reaches the terminal only when held is
	// closed; the others at once.
	held := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-held:
		default:
			close(held) // the harness's close waits for the print
		}
	})
	record := h.m.printCmd
	h.m.printCmd = func(text string) tea.Cmd {
		record(text)
		if !strings.Contains(text, "alpha") {
			return nil
		}
		return func() tea.Msg { <-held; return nil }
	}
	h.waitFor("the welcome screen to be printed", func(m *Model) bool { return strings.Contains(h.scrollback(), "Tips") })

	h.typeText("hello")
	h.key("enter")
	h.waitFor("the reply's print to start", func(m *Model) bool { return idle(m) && strings.Contains(h.scrollback(), "alpha") })

	h.typeText("again")
	h.key("enter")
	h.waitFor("the second reply to stream", func(m *Model) bool { return strings.Contains(screenOf(m), "partial second") })
	if !h.m.printing {
		t.Fatal("the first reply's print is no longer in flight: the interleaving was not forced")
	}
	if sb := h.scrollback(); strings.Contains(sb, "again") || strings.Contains(sb, "partial second") {
		t.Errorf("printed while a print was in flight:\n%s", sb)
	}
	s := h.screen()
	if u, r := strings.Index(s, "▌ again"), strings.Index(s, "partial second"); u < 0 || r < u {
		t.Errorf("the live region does not show the message above the streaming reply (message %d, reply %d):\n%s", u, r, s)
	}

	close(held)
	h.waitFor("the sent message to be printed", func(m *Model) bool { return strings.Contains(h.scrollback(), "▌ again") })
	if strings.Contains(h.scrollback(), "partial second") {
		t.Errorf("a streaming reply was printed:\n%s", h.scrollback())
	}
	if s := h.screen(); strings.Contains(s, "▌ again") || !strings.Contains(s, "partial second") {
		t.Errorf("after the print the live region should hold the streaming reply only:\n%s", s)
	}

	close(release)
	h.waitFor("the second reply to be printed", func(m *Model) bool {
		return idle(m) && !m.printing && strings.Contains(h.scrollback(), "partial second")
	})
	sb := h.scrollback()
	if u, r := strings.Index(sb, "▌ again"), strings.Index(sb, "partial second"); !(strings.Index(sb, "alpha") < u && u < r) {
		t.Errorf("scrollback out of order (message %d, reply %d):\n%s", u, r, sb)
	}
	if n := strings.Count(sb, "▌ again"); n != 1 {
		t.Errorf("the message was printed %d times:\n%s", n, sb)
	}
}
