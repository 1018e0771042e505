package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestE2EInlineWelcomeStaysOnScreen: started below a shell's output (or on
// a screen just cleared), inline mode prints its welcome where the chat
// starts, under what was there, and the screen still shows it after the
// first answer; it used to be printed before Bubble Tea drew a frame,
// scrolling the terminal by its height and pushing the welcome off.
func TestE2EInlineWelcomeStaysOnScreen(t *testing.T) {
	for _, before := range []string{"seq 1 60", "seq 1 60; clear"} {
		t.Run(before, func(t *testing.T) {
			e := newEnv(t, pt.Text("short first answer"))
			// Bubble Tea's trace says when the welcome went to the
			// scrollback (its "insert above"): the screen looks the same
			// before, the welcome drawn in the live region.
			trace := filepath.Join(t.TempDir(), "tea.log")
			e.vars = append(e.vars, "TEA_TRACE="+trace)
			s := startTUIAfter(t, e, before, "--inline")
			waitFile(t, trace, "the welcome's print", func(log string) bool {
				return strings.Contains(log, "insert above") && strings.Contains(log, "/compact summarises")
			})
			screen := s.screen()
			for _, want := range []string{" agent dev", "/compact summarises", "Message the agent"} {
				if !strings.Contains(screen, want) {
					t.Errorf("after the welcome's print the screen lacks %q:\n%s", want, screen)
				}
			}
			if !strings.Contains(before, "clear") && !strings.Contains(s.history(), "\n60\n agent dev") {
				t.Errorf("the welcome is not printed right under the shell's output:\n%s", s.history())
			}
			s.send("hello")
			s.waitText("short first answer")
			screen = s.idle()
			h := s.waitHistory("the answer in the scrollback", func(h string) bool { return strings.Contains(h, "  short first answer") })
			if !strings.Contains(screen, " agent dev") {
				t.Errorf("after the first answer the screen lacks the welcome:\n%s", screen)
			}
			if strings.Count(h, " agent dev") != 1 || strings.Count(h, "/compact summarises") != 1 {
				t.Errorf("the welcome is not in the scrollback once:\n%s", h)
			}
		})
	}
}

// waitFile polls a file until cond holds of its text.
func waitFile(t *testing.T, path, what string, cond func(text string) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if cond(string(b)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; %s holds:\n%s", what, path, b)
		}
		time.Sleep(30 * time.Millisecond)
	}
}
