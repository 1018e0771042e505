package tui

import (
	"fmt"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// (review10) sendfirst_test.go's two tests type their second message once
// h.sendTurn returns, and expect Enter to start its send. sendTurn waits
// for idle (the runner and the chat not busy), not for the first send's
// sentMsg: that comes through the commands' channel, the turn's end
// through the box, in either order. When it comes later, m.sending is
// still set, Enter only queues the message (sendNext), and the send starts
// in handleSent during waitFor: TestEnterStartsTheSendBeforeClearingTheEditor
// fails with "no send started on Enter" (5 of 60 runs), and
// TestEnterRunsTheSendBeforeUpdateReturns with "the send ran 2, Update
// returned 1" (12 of 150). Fix: idle (or sendTurn) waits for !m.sending
// and an empty m.pending too.
func TestSendTurnReturnsWithTheSendHandled(t *testing.T) {
	const turns = 40
	var steps []pt.Step
	for i := range turns {
		steps = append(steps, pt.Text(fmt.Sprint("answer ", i)))
	}
	h := newHarness(t, steps)
	for i := range turns {
		h.sendTurn(fmt.Sprint("message ", i), i+1)
		if h.m.sending || len(h.m.pending) > 0 {
			t.Fatalf("turn %d: sendTurn returned with the send's answer not handled (sending %v, %d pending): the next Enter only queues", i, h.m.sending, len(h.m.pending))
		}
	}
}
