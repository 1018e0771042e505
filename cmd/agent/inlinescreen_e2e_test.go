package main

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Inline mode's screen at its edges (issue 32 item 7): quitting, a
// cleared terminal, a resize. Driven in tmux like inline_e2e_test.go.

// TestE2EInlineQuitLeavesNoPrompt: quitting leaves the conversation in the
// scrollback, without the editor, its hint or the status line under it.
func TestE2EInlineQuitLeavesNoPrompt(t *testing.T) {
	for _, quit := range []string{"ctrl+c twice", "/quit"} {
		t.Run(quit, func(t *testing.T) {
			e := newEnv(t, pt.Text("short first answer"))
			s := startTUI(t, e, "--inline")
			s.send("hello")
			s.waitText("short first answer")
			s.idle()
			if quit == "/quit" {
				s.send("/quit")
			} else {
				s.keys("C-c")
				s.waitText("press ctrl+c again")
				s.keys("C-c")
			}
			h := s.waitHistory("the agent to exit", func(h string) bool { return strings.Contains(h, exitMarker) })
			for _, stale := range []string{"Message the agent", "press ctrl+c again", "─────"} {
				if strings.Contains(h, stale) {
					t.Errorf("%q is left in the scrollback:\n%s", stale, h)
				}
			}
			if strings.Count(h, "short first answer") != 1 || strings.Count(h, "▌ hello") != 1 {
				t.Errorf("the conversation is not in the scrollback once:\n%s", h)
			}
		})
	}
}

// TestE2EInlineNarrowingLeavesNoStaleRule: narrowing the pane rewraps the
// old frame's wide lines into more rows than the frame had; the redraw
// clears them all, so the screen shows one rule, not a stale copy.
func TestE2EInlineNarrowingLeavesNoStaleRule(t *testing.T) {
	e := newEnv(t, pt.Text("short first answer"))
	s := startTUI(t, e, "--inline")
	s.send("hello")
	s.waitText("short first answer")
	s.idle()
	s.tmux("resize-window", "-t", "main", "-x", "80")
	// The new frame is drawn when the status line fits on one row again
	// (the terminal wrapped the old one in two).
	screen := s.waitFor("the frame at 80 columns", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, "gpt-4.1") && strings.Contains(l, "$0.") {
				return true
			}
		}
		return false
	})
	if n := countRows(screen, "─────"); n != 1 {
		t.Errorf("%d rule rows after narrowing to 80 columns, want 1:\n%s", n, screen)
	}
}

// countRows is how many rows of screen hold text.
func countRows(screen, text string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, text) {
			n++
		}
	}
	return n
}

// TestE2EInlineWelcomeStaysOnAFullScreen: a pane already full of a
// shell's output (seq 1 60 in 40 rows) still shows the whole welcome
// after the chat opens: it is not scrolled away above before the first
// frame is drawn.
func TestE2EInlineWelcomeStaysOnAFullScreen(t *testing.T) {
	e := newEnv(t, pt.Text("short first answer"))
	s := startTUIAfter(t, e, "seq 1 60", "--inline")
	screen := s.waitText("Tips")
	for _, want := range []string{"agent ", "directory", "model", "/compact summarises", "Message the agent"} {
		if !strings.Contains(screen, want) {
			t.Errorf("%q is not on the screen after start:\n%s", want, screen)
		}
	}
	// Once drawn, it goes to the scrollback once, above the conversation.
	s.send("hello")
	s.waitText("short first answer")
	h := s.waitHistory("the answer in the scrollback", func(h string) bool { return strings.Count(h, "short first answer") == 1 })
	if strings.Count(h, "directory ") != 1 || strings.Index(h, "directory ") > strings.Index(h, "▌ hello") {
		t.Errorf("the welcome is not in the scrollback once, above the message:\n%s", h)
	}
}
