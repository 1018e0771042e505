package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// The frame after Enter is drawn once the send is out (sentMsg): until
// then View returns the frame before Enter, which Bubble Tea's renderer
// finds unchanged and does not draw.
func TestTheFrameAfterEnterIsDrawnOnceTheSendIsOut(t *testing.T) {
	holdLonger(t) // only the send's answer ends this hold
	h := secondMessageTyped(t)
	defer h.close()
	before := h.m.View().Content
	h.key("enter")
	if !h.m.sending {
		t.Fatal("Enter sent nothing")
	}
	if got := h.m.View().Content; got != before {
		t.Fatalf("the frame changed before the send was out:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	h.waitFor("the send's answer", func(m *Model) bool { return !m.sending })
	if got := h.m.View().Content; got == before {
		t.Fatal("the frame after the send is still the frame before Enter")
	}
	h.waitScreen("the answer")
}

// What the user does while the send goes out is drawn at once.
func TestAKeyDuringTheHoldIsDrawnAtOnce(t *testing.T) {
	h := secondMessageTyped(t)
	defer h.close()
	before := h.m.View().Content
	h.key("enter")
	if !h.m.sending {
		t.Fatal("Enter sent nothing")
	}
	h.typeText("z")
	if got := h.m.View().Content; got == before {
		t.Fatal("a key typed during the hold was not drawn")
	}
	h.waitScreen("the answer")
}

// holdLonger has the test's holds end by the send's answer or the user's
// input, not by holdMax on a loaded machine.
func holdLonger(t *testing.T) {
	old := holdMax
	holdMax = time.Minute
	t.Cleanup(func() { holdMax = old })
}

func TestFrameHold(t *testing.T) {
	var h frameHold
	t0 := time.Now()
	h.start(t0)
	if _, ok := h.held(t0); ok {
		t.Fatal("held with no frame drawn yet")
	}
	a := tea.NewView("frame a")
	h.keep(a)
	h.start(t0)
	if v, ok := h.held(t0.Add(holdMax - time.Millisecond)); !ok || v.Content != "frame a" {
		t.Fatalf("within holdMax: %q, %v; want frame a held", v.Content, ok)
	}
	if _, ok := h.held(t0.Add(holdMax)); ok {
		t.Fatal("held at holdMax")
	}
	if _, ok := h.held(t0); ok {
		t.Fatal("a hold ended by holdMax came back")
	}
	h.start(t0)
	h.release()
	if _, ok := h.held(t0); ok {
		t.Fatal("held after release")
	}
	for _, msg := range []tea.Msg{tea.KeyPressMsg{Code: 'x'}, tea.PasteMsg{Content: "x"}, tea.MouseClickMsg{}, tea.WindowSizeMsg{}} {
		if !releasesHold(msg) {
			t.Errorf("%T does not end the hold", msg)
		}
	}
	if releasesHold(sentMsg{}) {
		t.Error("sentMsg is no input")
	}
}

// The message's request goes out from Update itself: Bubble Tea runs the
// commands Update returns only after the frame, and a batch of them after
// a round through its event loop.
func TestEnterSendsBeforeItsCommandRuns(t *testing.T) {
	h := secondMessageTyped(t)
	defer h.close()
	_, cmd := h.m.Update(keyPress("enter")) // its commands not run yet
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.srv.WaitRequests(ctx, 2); err != nil {
		t.Fatalf("the request did not go out before Enter's commands ran: %v", err)
	}
	h.run(cmd)
	h.waitScreen("the answer")
}

// A send slower than holdMax has its frame drawn when holdEndMsg comes,
// with no other message: Enter's commands deliver it.
func TestAHoldEndsAtHoldMaxWithNoOtherMessage(t *testing.T) {
	h := secondMessageTyped(t)
	defer h.close()
	before := h.m.View().Content
	_, cmd := h.m.Update(keyPress("enter"))
	msgs := make(chan tea.Msg, 16)
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			msgs <- msg
		}()
	}
	run(cmd)
	// The send's answer (sentMsg, which ends the hold too) and the rest
	// are held back until holdEndMsg has come: only the time ends this
	// hold (review9).
	var later []tea.Msg
	deadline := time.After(5 * time.Second)
	for woke := false; !woke; {
		select {
		case msg := <-msgs:
			if _, ok := msg.(holdEndMsg); ok {
				woke = true
				h.send(msg)
				if got := h.m.View().Content; got == before {
					t.Fatal("holdEndMsg came with the frame still held")
				}
				continue
			}
			later = append(later, msg)
		case <-deadline:
			t.Fatal("no holdEndMsg from Enter's commands")
		}
	}
	for _, msg := range later {
		h.send(msg)
	}
	h.waitScreen("the answer")
}

// secondMessageTyped is a chat after one turn, with "a question" typed
// and not sent: its Enter sends it ("the answer").
func secondMessageTyped(t *testing.T) *harness {
	h := newHarness(t, []pt.Step{pt.Text("the first answer"), pt.Text("the answer")})
	h.typeText("hello")
	h.key("enter")
	h.waitScreen("the first answer")
	h.waitFor("the turn's end", sendSettled)
	h.typeText("a question")
	return h
}
