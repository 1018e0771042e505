package tui

import (
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestBusyEditorHintSaysEnterSteers: the empty editor's hint while the
// agent works says Enter steers and Tab queues, and goes back to "enter
// sends" once the turn ends (issue 32 item 6).
func TestBusyEditorHintSaysEnterSteers(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{pt.Reply(pt.Block(release), pt.TextChunk("done"), pt.FinishChunk("stop"), pt.AutoUsageChunk())})
	h.waitScreen("enter sends")
	h.typeText("start")
	h.key("enter")
	h.waitFor("busy", func(m *Model) bool { return m.busy && len(h.srv.Requests()) == 1 })
	h.waitScreen("enter steers the running turn · tab queues for after it")
	close(release)
	h.waitFor("idle", func(m *Model) bool { return idle(m) })
	h.waitScreen("enter sends")
}
