package tui

import (
	"context"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestFreshChatWritesItsSessionWithTheFirstMessage opens a fresh chat's
// session as its first message does: the open writes nothing (one write
// less between Enter and the request), and the message then stores the
// session's row with it.
func TestFreshChatWritesItsSessionWithTheFirstMessage(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello there")})
	msg, ok := h.m.openSession("")().(openedMsg)
	if !ok || msg.err != nil || msg.runner == nil {
		t.Fatalf("open: %+v", msg)
	}
	if msg.runner.Stored() {
		t.Fatal("opening a fresh chat's session wrote its row before any message")
	}
	if ss, err := h.store.ListSessions(context.Background(), ""); err != nil || len(ss) != 0 {
		t.Fatalf("sessions before the first message: %v %v", ss, err)
	}
	h.send(msg)
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "hello there") })
	if !msg.runner.Stored() {
		t.Fatal("the first message did not store the session")
	}
	ss, err := h.store.ListSessions(context.Background(), "")
	if err != nil || len(ss) != 1 || ss[0].ID != msg.sess.ID {
		t.Fatalf("sessions after the first message: %v %v", ss, err)
	}
	hist, err := h.store.LoadHistory(context.Background(), ss[0].ID)
	if err != nil || len(hist) != 2 || hist[0].Parts[0].Text != "hi" {
		t.Fatalf("history: %+v %v", hist, err)
	}
}
