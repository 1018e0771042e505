package main

import (
	"strings"
	"testing"
)

// TestE2EResumedLongSessionScrollsToItsFirstMessage resumes a session
// of 600 messages, which the chat opens by its tail, and goes to the top
// with ctrl+home again and again: each time the "loading earlier
// messages…" row is reached the page above is read, until the session's
// first question and answer are on screen and no row is left (the first
// ctrl+home cannot reach them: the chat did not open them).
func TestE2EResumedLongSessionScrollsToItsFirstMessage(t *testing.T) {
	e := newEnv(t)
	id := seedBenchSession(t, e.data, e.work, 300)
	s := startTUI(t, e, "--session", id)
	prev := s.waitText("Answer 299")
	for i := range 100 {
		s.keys("C-Home")
		// The view moved and no page is being read.
		screen := s.waitFor("ctrl+home to move the view", func(screen string) bool {
			return screen != prev && !strings.Contains(screen, "loading earlier messages")
		})
		if strings.Contains(screen, "question 0:") {
			if i == 0 {
				t.Fatalf("the first ctrl+home reached the first message: the chat opened the whole history")
			}
			// Its Markdown is rendered off the event loop and shown as
			// plain text until then (internal/tui/markdown.go): "**0**"
			// for a moment, "0" in bold once the render arrives.
			s.waitText("Answer 0 follows")
			return
		}
		prev = screen
	}
	t.Fatalf("the first message never came on screen:\n%s", s.screen())
}
