package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
