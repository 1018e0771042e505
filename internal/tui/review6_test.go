package tui

import (
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Review 6 (earlyopen.go). The contract opens a fresh chat's session on
// the first key "only when Enter would open a new session": a slash
// command's Enter runs the command (/model, /resume, /new, /help) and
// sends nothing, so its first character must not open a session (a
// loop.Open, a warming and, for /resume, a runner the resumed open's
// swap closes while its warming may still be starting).
func TestReview6EarlyOpenNotForASlashCommand(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("/")
	if e := h.m.prefetch.early; e != nil {
		<-e.done
		t.Fatal("typing a slash command's first character in a fresh chat opened a session")
	}
}

// Review 6 (earlyopen.go). An early open that a resume supersedes (the
// resume's open takes the same generation and closes the early runner in
// its swap) stays in prefetch.early: the next fresh chat (/new) opens
// nothing on its first key, since startEarlyOpen returns while early is
// set, and its Enter opens the session as before the change.
func TestReview6EarlyOpenAfterAResumeThenNew(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("first")})
	h.sendTurn("hi", 1)
	sess := h.m.runner.Session()
	h.command("/new")
	h.waitFor("a fresh chat", func(m *Model) bool { return m.fresh && m.runner == nil })
	waitSlotEmpty(t, h)
	h.typeText("x")
	waitEarly(t, h)
	// A resume while the fresh chat holds its early open (the sessions
	// picker, or /resume once the editor is cleared).
	h.key("backspace")
	h.run(h.m.openSession(sess.ID))
	h.waitFor("the resumed session", func(m *Model) bool { return m.runner != nil && !m.opening })
	h.command("/new")
	h.waitFor("a fresh chat again", func(m *Model) bool { return m.fresh && m.runner == nil })
	waitSlotEmpty(t, h)
	h.typeText("y")
	e := h.m.prefetch.early
	if e == nil || e.gen != h.m.gen+1 {
		gen := -1
		if e != nil {
			gen = e.gen
		}
		t.Fatalf("the fresh chat after a resume opened no session on its first key (early for generation %d, chat at %d)", gen, h.m.gen)
	}
	<-e.done
}

// waitSlotEmpty waits for /new's close of the runner it left (a command
// of its own) to have taken it out of the slot.
func waitSlotEmpty(t *testing.T, h *harness) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.m.slot.mu.Lock()
		empty := h.m.slot.r == nil
		h.m.slot.mu.Unlock()
		if empty {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the runner /new left is still in the slot")
		}
		time.Sleep(time.Millisecond)
	}
}

// Review 6 (earlyopen.go, runnerSlot.fill). /new leaves the session's
// runner in the slot until its close command runs (leaveSession: Close
// waits for the turn's goroutine, titles, jobs, language servers). A
// first key typed meanwhile starts an early open whose fill then finds
// that runner, one the chat has already left, takes it for "an open
// begun since", closes its own runner and fails: the first message after
// /new is opened on Enter after all.
func TestReview6EarlyOpenWhileNewStillClosesTheOldRunner(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("first")})
	h.sendTurn("hi", 1)
	leave := h.m.leaveSession() // /new; its command not run yet
	h.typeText("x")
	e := h.m.prefetch.early
	if e == nil {
		t.Fatal("no early open after /new")
	}
	<-e.done
	h.run(leave)
	if e.msg.err != nil || e.msg.runner == nil {
		t.Fatalf("the early open after /new failed while the left runner was still in the slot: %v", e.msg.err)
	}
}
