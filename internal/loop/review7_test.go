package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

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
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("the resumed walk panicked: %v", v)
		}
	}()
	sameConversation(t, h.r.stepper.prepare(), wholeWalk(h))
}

// review7: resumeWalk trusts the prefix's counted prices when c.est is
// the estimator asked for; but estimate (the compaction decision's
// requestEstimate, run between two requests) sets c.est to its own
// estimator and empties the kept prices. After a model switch to one
// counted by another estimator, with the calibration unmoved (so
// nothing is repriced), the request resumes with the prefix's sums as
// the old estimator counted them.
func TestReview7ResumeAfterAnEstimatorChangeIsTheWholeWalk(t *testing.T) {
	h := newHarness(t)
	hist := longHistory(t, h, 50)
	tok := tokens.NewEstimator("gpt-4.1")
	<-tok.(*tokens.Tokenizer).Ready()
	if !cachedCounts(tok) {
		t.Skip("the tokenizer did not load")
	}
	var lock historyLock
	markOf := func(h []message.Entry) historyMark {
		return historyMark{edits: lock.edits.Load(), n: len(h), lock: &lock}
	}
	opt := h.r.stepper.convertOptions()
	system := h.r.stepper.system()
	calcA := tokens.NewCalculator(tokens.Options{Window: 200000}, tokens.Chars{})
	calcB := tokens.NewCalculator(tokens.Options{Window: 200000}, tok)
	var c requestCache
	c.conversation(system, hist, markOf(hist), opt, calcA, tokens.Chars{}) // the request before the switch
	c.estimate(hist, true, calcB, tok)                                     // the decision after it
	hist = append(hist, message.Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleUser},
		Parts: []message.Part{{Type: message.PartText, Text: "and now?"}}})
	got := c.conversation(system, hist, markOf(hist), opt, calcB, tok)
	var fresh requestCache
	want := fresh.conversation(system, hist, historyMark{}, opt, calcB, tok)
	if got.calibrated != want.calibrated || got.plain != want.plain {
		t.Fatalf("after the estimator changed the request is priced %d/%d, the whole walk %d/%d (walked %d entries)",
			got.calibrated, got.plain, want.calibrated, want.plain, c.walked)
	}
}
