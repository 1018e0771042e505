package loop

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// warmedRunner is a runner on a resumed history of turns turns whose next
// request the warming made ahead (prebuildRequest), as the chat's is when
// the user presses Enter.
func warmedRunner(t *testing.T, turns int) *harness {
	t.Helper()
	h := newHarness(t)
	h.r.state.history = longHistory(t, h, turns)
	h.r.stepper.prebuildRequest()
	if h.r.stepper.reqc.walked < 2*turns {
		t.Fatalf("the warming walked %d entries of %d", h.r.stepper.reqc.walked, 2*turns)
	}
	return h
}

// sendUser puts a user message in the history as Enter does.
func sendUser(h *harness, text string) {
	appendUserEntry(h.r.state, h.r.calcp.Load(), message.Message{ID: message.NewID(), SessionID: h.r.state.id(), Role: message.RoleUser},
		[]message.Part{{Type: message.PartText, Text: text}})
}

// wholeWalk is the conversation of the runner's history made by a cache
// that keeps nothing: what the request must be.
func wholeWalk(h *harness) *conversation {
	sp := h.r.stepper
	var c requestCache
	return c.conversation(sp.system(), sp.history(), historyMark{}, sp.convertOptions(), sp.calc(), sp.modelPricing().est)
}

func sameConversation(t *testing.T, got, want *conversation) {
	t.Helper()
	if !reflect.DeepEqual(got.msgs, want.msgs) || !reflect.DeepEqual(got.enc, want.enc) || got.repairs != want.repairs ||
		got.calibrated != want.calibrated || got.plain != want.plain || got.summarised != want.summarised {
		t.Fatalf("the request differs from the whole walk's: %d messages (%d repairs, %d/%d tokens), want %d (%d, %d/%d)",
			len(got.msgs), got.repairs, got.calibrated, got.plain, len(want.msgs), want.repairs, want.calibrated, want.plain)
	}
}

// The request after the warming walks what was appended since, and the
// newest entries the warming walked, not the whole history: the rest is
// sent as the warming made it.
func TestPrepareAfterTheWarmingWalksOnlyWhatIsNew(t *testing.T) {
	h := warmedRunner(t, 300)
	sendUser(h, "and now the tests")
	cv := h.r.stepper.prepare()
	if w := h.r.stepper.reqc.walked; w > recheckNewest+1 {
		t.Errorf("the request walked %d entries; want at most %d", w, recheckNewest+1)
	}
	sameConversation(t, cv, wholeWalk(h))
	// And the next step's, after the step's entry was appended and
	// written in place (its tools' results).
	e := message.Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant, FinishReason: "tool_calls"},
		Parts: []message.Part{{Type: message.PartTool, Tool: &message.ToolState{CallID: "new1", Name: "read", Status: message.ToolRunning, Input: "{}"}}}}
	h.r.state.appendEntry(e)
	h.r.stepper.prepare()
	// The answer's usage moves the calibration; the warming counts the
	// kept prices at it while the next message is typed.
	h.r.calcp.Load().Observe(message.Usage{Input: 90000, Output: 10}, 60000)
	h.r.stepper.reqc.repriceAhead(h.r.calcp.Load())
	e.Parts[0].Tool.Status, e.Parts[0].Tool.Output = message.ToolCompleted, "the file" // in place, no writer
	cv = h.r.stepper.prepare()
	if w := h.r.stepper.reqc.walked; w > recheckNewest+1 {
		t.Errorf("the next step walked %d entries; want at most %d", w, recheckNewest+1)
	}
	sameConversation(t, cv, wholeWalk(h))
}

// Every writer of the history between the warming's conversation and the
// request is seen: the request is the whole walk's, whatever it changed.
func TestEveryHistoryWriterIsSeen(t *testing.T) {
	ctx := context.Background()
	old := func(h *harness, i int) message.Entry { return copyEntry(h.r.state.history[i]) }
	writers := map[string]func(t *testing.T, h *harness){
		"replaceEntry": func(t *testing.T, h *harness) {
			e := old(h, 11)
			e.Parts[0].Text = "an answer rewritten"
			h.r.state.replaceEntry(e)
		},
		"replaceEntry of the newest": func(t *testing.T, h *harness) {
			e := old(h, len(h.r.state.history)-1)
			e.Parts[0].Text = "the last answer rewritten"
			h.r.state.replaceEntry(e)
		},
		"dropUserEntry of the newest": func(t *testing.T, h *harness) {
			dropUserEntry(h.r.state, h.r.state.history[len(h.r.state.history)-2].Message.ID)
		},
		"editHistory in place": func(t *testing.T, h *harness) {
			h.r.state.editHistory(func(hist []message.Entry) []message.Entry {
				hist[3].Parts[0].Text = "rewritten in place"
				return hist
			})
		},
		"editHistory removes": func(t *testing.T, h *harness) {
			h.r.state.editHistory(func(hist []message.Entry) []message.Entry { return append(hist[:4:4], hist[6:]...) })
		},
		"dropUserEntry": func(t *testing.T, h *harness) { dropUserEntry(h.r.state, h.r.state.history[20].Message.ID) },
		"prune marks (compactor)": func(t *testing.T, h *harness) {
			var ids []string
			for _, p := range h.r.state.history[61].Parts {
				if p.Tool != nil {
					ids = append(ids, p.ID)
				}
			}
			if err := h.r.comp.markCompacted(ctx, ids); err != nil {
				t.Fatal(err)
			}
		},
		"undo restores pruned outputs (uncompact)": func(t *testing.T, h *harness) {
			if _, err := h.r.comp.undo(ctx); err != nil {
				t.Fatal(err)
			}
		},
		"summary edited": func(t *testing.T, h *harness) {
			h.r.state.editHistory(func(hist []message.Entry) []message.Entry {
				hist[30].Message.Summary = true
				return hist
			})
		},
		"rewound": func(t *testing.T, h *harness) {
			h.r.state.editHistory(func(hist []message.Entry) []message.Entry {
				for i := len(hist) - 6; i < len(hist); i++ {
					hist[i].Message.RewindID = "rw"
				}
				return hist
			})
		},
		"appended summary": func(t *testing.T, h *harness) {
			h.r.state.appendEntry(message.Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant, Summary: true},
				Parts: []message.Part{{Type: message.PartText, Text: "the summary"}}})
		},
		"appended image": func(t *testing.T, h *harness) {
			h.r.state.appendEntry(message.Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleUser},
				Parts: []message.Part{{Type: message.PartFile, File: &message.FileState{Kind: message.AttachImage, Path: "a.png", MIME: "image/png"}}}})
		},
		"appended plainly": func(t *testing.T, h *harness) {
			h.r.state.appendEntry(message.Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant},
				Parts: []message.Part{{Type: message.PartText, Text: strings.Repeat("more ", 10)}}})
		},
		"calibrated": func(t *testing.T, h *harness) {
			h.r.calcp.Load().Observe(message.Usage{Input: 90000, Output: 10}, 60000)
		},
		"history put in place whole": func(t *testing.T, h *harness) {
			h.r.state.history = longHistory(t, h, 31)[2:]
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			h := warmedRunner(t, 50) // the oldest 10 turns' outputs cleared
			write(t, h)
			sendUser(h, "and then")
			sameConversation(t, h.r.stepper.prepare(), wholeWalk(h))
		})
	}
}

// A resumed walk (reqresume.go) that meets a changed entry among
// the last conversation's newest calls diverge with k inside the entries
// it did not walk; diverge rebuilds the call ids seen from b.at[:k]'s
// conv, which is nil for an entry sent fresh (a repaired one: a call id
// used before, as providers that number their calls call_0, call_1… each
// step do). A whole walk never reaches diverge past such an entry.
func TestResumeAfterARepairedEntryIsTheWholeWalk(t *testing.T) {
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

// resumeWalk trusted the prefix's counted prices when c.est is
// the estimator asked for; but estimate (the compaction decision's
// requestEstimate, run between two requests) sets c.est to its own
// estimator and empties the kept prices. After a model switch to one
// counted by another estimator, with the calibration unmoved (so
// nothing is repriced), the request resumes with the prefix's sums as
// the old estimator counted them.
func TestResumeAfterAnEstimatorChangeIsTheWholeWalk(t *testing.T) {
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
