package loop

import "testing"

// review7: a resumed walk (reqresume.go) that meets a changed entry among
// the last conversation's newest calls diverge with k inside the entries
// it did not walk; diverge rebuilds the call ids seen from b.at[:k]'s
// conv, which is nil for an entry sent fresh (a repaired one: a call id
// used before, as providers that number their calls call_0, call_1… each
// step do). A whole walk never reaches diverge past such an entry.
func TestReview7ResumeAfterARepairedEntryIsTheWholeWalk(t *testing.T) {
	h := newHarness(t)
	hist := longHistory(t, h, 50)
	// An early answer reuses an older answer's call id: sent repaired.
	for i := range hist[21].Parts {
		if p := &hist[21].Parts[i]; p.Tool != nil {
			p.Tool.CallID = "c3"
		}
	}
	h.r.state.history = hist
	h.r.stepper.prebuildRequest()
	sendUser(h, "first try")
	h.r.stepper.prepare()
	// The user's message is dropped (its commit failed) and sent again.
	dropUserEntry(h.r.state, h.r.state.history[len(h.r.state.history)-1].Message.ID)
	sendUser(h, "second try")
	sameConversation(t, h.r.stepper.prepare(), wholeWalk(h))
}
