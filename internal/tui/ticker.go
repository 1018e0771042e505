package tui

// The ticker drives the spinner, the elapsed time and the retry countdowns
// while something runs: one tick in flight at a time, tickInterval apart,
// started again by each update that still needs it; a tick that is not
// the one in flight is ignored.

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// ticker is the chat's tick state. Its zero value has no tick in flight.
type ticker struct {
	ticking bool // a tick is in flight
	gen     int  // the tick in flight
	frame   int  // ticks taken: the spinner's frame
}

// start returns the next tick, delivered by after, when need and no tick
// is in flight.
func (t *ticker) start(need bool, after func(time.Duration, tea.Msg) tea.Cmd) tea.Cmd {
	if !need || t.ticking {
		return nil
	}
	t.ticking = true
	t.gen++
	return after(tickInterval, tickMsg{gen: t.gen})
}

// tick takes msg, advancing the frame; false when it is not the tick in
// flight.
func (t *ticker) tick(msg tickMsg) bool {
	if msg.gen != t.gen {
		return false
	}
	t.ticking = false
	t.frame++
	return true
}
