package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/hooks"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// waitEarly waits for the fresh chat's early open to be over and returns
// the runner it opened.
func waitEarly(t *testing.T, h *harness) openedMsg {
	t.Helper()
	e := h.m.prefetch.early
	if e == nil {
		t.Fatal("typing the first character of a fresh chat opened no session")
	}
	<-e.done
	if e.msg.err != nil || e.msg.runner == nil {
		t.Fatalf("early open: %+v", e.msg)
	}
	return e.msg
}

// TestFreshChatOpensItsSessionOnTheFirstKey: the session a fresh chat's
// first message needs is opened while it is typed, writes nothing until
// the message is sent, and is the one the message goes to.
func TestFreshChatOpensItsSessionOnTheFirstKey(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello there")})
	h.typeText("h")
	early := waitEarly(t, h)
	if h.m.runner != nil || !h.m.fresh {
		t.Fatal("the chat left its fresh state before Enter")
	}
	if ss, err := h.store.ListSessions(context.Background(), ""); err != nil || len(ss) != 0 {
		t.Fatalf("sessions before Enter: %v %v", ss, err)
	}
	h.typeText("i")
	h.key("enter")
	if h.m.runner != early.runner {
		t.Fatal("Enter did not take the session opened on the first key at once")
	}
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "hello there") })
	ss, err := h.store.ListSessions(context.Background(), "")
	if err != nil || len(ss) != 1 || ss[0].ID != early.sess.ID {
		t.Fatalf("sessions after the first message: %v %v", ss, err)
	}
	hist, err := h.store.LoadHistory(context.Background(), ss[0].ID)
	if err != nil || len(hist) != 2 || hist[0].Parts[0].Text != "hi" {
		t.Fatalf("history: %+v %v", hist, err)
	}
}

// TestFreshChatQuitAfterTypingLeavesNoSession: a session opened on the
// first key and never sent to is closed with the chat and leaves nothing.
func TestFreshChatQuitAfterTypingLeavesNoSession(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("never sent")
	early := waitEarly(t, h)
	h.close()
	if h.m.slot.r != nil || early.runner.Stored() {
		t.Fatal("the chat's close left the early session's runner open, or it wrote its row")
	}
	st, err := storage.Open(context.Background(), h.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ss, err := st.ListSessions(context.Background(), ""); err != nil || len(ss) != 0 {
		t.Fatalf("sessions after quitting: %v %v", ss, err)
	}
}

// TestEarlyOpenFollowsTheModelChosenBeforeEnter: a model chosen after the
// first key (a new configuration) is the one the first request names.
func TestEarlyOpenFollowsTheModelChosenBeforeEnter(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("ok")})
	h.typeText("h")
	early := waitEarly(t, h)
	cfg := *h.m.opt.Loop.Config
	cfg.Model = "gpt-4.1-mini"
	h.m.opt.Loop.Config = &cfg
	h.typeText("i")
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "ok") })
	if h.m.runner == early.runner {
		t.Fatal("the session opened with the old model was used")
	}
	if reqs := h.srv.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Chat.Model != "gpt-4.1-mini" {
		t.Fatalf("the request's model is not the one chosen: %+v", reqs)
	}
}

// TestSessionStartHooksWaitForEnter: with SessionStart hooks the session
// is opened on Enter as before, so that they fire once, for a session
// that is used.
func TestSessionStartHooksWaitForEnter(t *testing.T) {
	log := filepath.Join(t.TempDir(), "started")
	hr, warnings := hooks.New([]hooks.Hook{{Event: hooks.SessionStart, Command: "echo x >> " + log}}, hooks.Options{})
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	h := newHarness(t, []pt.Step{pt.Text("ok")}, func(o *Options) { o.Loop.Hooks = hr })
	h.typeText("hi")
	if h.m.prefetch.early != nil {
		t.Fatal("a chat with SessionStart hooks opened its session before Enter")
	}
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "ok") })
	b, err := os.ReadFile(log)
	if err != nil || string(b) != "x\n" {
		t.Fatalf("SessionStart ran %q (%v), want once", b, err)
	}
}

// The contract opens a fresh chat's session on
// the first key "only when Enter would open a new session": a slash
// command's Enter runs the command (/model, /resume, /new, /help) and
// sends nothing, so its first character must not open a session (a
// loop.Open, a warming and, for /resume, a runner the resumed open's
// swap closes while its warming may still be starting).
func TestEarlyOpenNotForASlashCommand(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("/")
	if e := h.m.prefetch.early; e != nil {
		<-e.done
		t.Fatal("typing a slash command's first character in a fresh chat opened a session")
	}
}

// An early open that a resume supersedes (the
// resume's open takes the same generation and closes the early runner in
// its swap) stays in prefetch.early: the next fresh chat (/new) opens
// nothing on its first key, since startEarlyOpen returns while early is
// set, and its Enter opens the session as before the change.
func TestEarlyOpenDroppedByAResume(t *testing.T) {
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
		empty := h.m.slot.r == nil && len(h.m.slot.left) == 0
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

// runnerSlot.fill. /new leaves the session's
// runner in the slot until its close command runs (leaveSession: Close
// waits for the turn's goroutine, titles, jobs, language servers). A
// first key typed meanwhile starts an early open whose fill then finds
// that runner, one the chat has already left, takes it for "an open
// begun since", closes its own runner and fails: the first message after
// /new is opened on Enter after all.
func TestEarlyOpenWhileNewStillClosesTheOldRunner(t *testing.T) {
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

// A session /new just left is resumed before the close /new started has
// run (a close waits for titles, jobs, language servers): the resume's
// open closes it first instead of finding its own process's lease.
func TestResumeOfASessionJustLeftWaitsForItsClose(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("first")})
	h.sendTurn("hi", 1)
	sess := h.m.runner.Session()
	leave := h.m.leaveSession() // /new; its close command not run yet
	h.run(h.m.openSession(sess.ID))
	h.waitFor("the resumed session", func(m *Model) bool { return m.runner != nil && !m.opening || m.openErr != nil })
	if h.m.openErr != nil {
		t.Fatalf("resuming the session /new just left: %v", h.m.openErr)
	}
	h.run(leave) // the late close: the resumed runner stays open
	if h.m.runner == nil || h.m.runner.Session().ID != sess.ID {
		t.Fatal("the resumed session is not the chat's")
	}
	h.m.slot.mu.Lock()
	defer h.m.slot.mu.Unlock()
	if h.m.slot.r != h.m.runner || len(h.m.slot.left) != 0 {
		t.Fatalf("slot holds %p (chat %p), %d left", h.m.slot.r, h.m.runner, len(h.m.slot.left))
	}
}
