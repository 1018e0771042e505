package tui

// The frame after Enter, drawn once the request is on the wire (issue 36
// item 4). Sending a message changes the screen (the editor cleared, the
// message and the spinner shown), and Bubble Tea draws that frame on its
// own ticker: diffing the screen, writing it, and the terminal parsing
// it — on a machine's few cores, beside the request the chat is writing
// and the server reading (a resumed long session's is megabytes). The
// chat keeps showing the frame it showed before Enter until the send
// comes back (sentMsg: the runner has handed the body to the connection
// and stored the message, provider.Request.Sent and loop's usercommit.go),
// then draws the new one: the user sees it a few milliseconds later, with
// the message in place.
//
// The hold is short and never blocks: it starts only when a message goes
// to the runner (sendNext), ends at the send's answer, at any input (a
// key, a paste, the mouse, a resize: what the user does is drawn at
// once), and in any case holdMax after it started (holdEndMsg: a connect
// that hangs, a write that waits for the database). An inline chat does not hold (its
// prints into the scrollback need the live region as drawn).

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// holdMax is the longest a frame is held after a send starts (a
// variable for the tests that must not see it end on a loaded machine).
var holdMax = 50 * time.Millisecond

// holdEndMsg comes holdMax after a send started, so that a send slower
// than that (its message's write waiting for the database) has its frame
// drawn then: Update does nothing with it, and View draws.
type holdEndMsg struct{}

// frameHold is the frame last drawn and, while a send is on its way out,
// until when it stands for the screen. Update and View run on Bubble
// Tea's event loop, one at a time: it needs no lock.
type frameHold struct {
	last  tea.View
	drawn bool      // last holds a frame
	until time.Time // the hold's end; zero: no hold
}

// start holds the frame last drawn from now until release, or holdMax.
func (h *frameHold) start(now time.Time) {
	if h.drawn {
		h.until = now.Add(holdMax)
	}
}

// release ends the hold: the next View draws.
func (h *frameHold) release() { h.until = time.Time{} }

// held returns the frame to show instead of drawing one at now, if a hold
// is under way.
func (h *frameHold) held(now time.Time) (tea.View, bool) {
	if h.until.IsZero() {
		return tea.View{}, false
	}
	if !now.Before(h.until) {
		h.release()
		return tea.View{}, false
	}
	return h.last, true
}

// keep remembers v, the frame just drawn.
func (h *frameHold) keep(v tea.View) { h.last, h.drawn = v, true }

// releasesHold reports whether msg is the user's input, which is drawn
// at once.
func releasesHold(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseMsg, tea.WindowSizeMsg:
		return true
	}
	return false
}
