package tui

import (
	"context"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestDisplacedRunnerIsClosed: /new closes the open runner in a command;
// when the next session's open runs before that command, the open closes
// the runner it displaces, so the old session's lease is released (before,
// it stayed held and resuming that session failed as busy).
func TestDisplacedRunnerIsClosed(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("first reply")})
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "first reply") })
	first := h.m.sess.ID
	leave := h.m.leaveSession()
	open := h.m.openSession("")
	msg := open() // the new session's open runs first
	if leave != nil {
		leave() // then /new's close: the runner is no longer the open one
	}
	h.send(msg)
	lease, err := h.store.AcquireLease(context.Background(), first)
	if err != nil {
		t.Fatalf("the displaced session's lease is still held: %v", err)
	}
	lease.Release()
}
