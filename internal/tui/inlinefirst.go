package tui

// Inline mode's first frame: nothing is printed into the scrollback
// before the program has drawn its first frame on the terminal.
//
// Contract. Bubble Tea's insertAbove scrolls by the print and then moves
// up the print plus the height of the frame it drew last; before the first
// frame that height is the whole terminal's, so a print sent then (the
// welcome, a resumed history) lands at the top of the screen and the
// first frame, drawn where the shell's cursor was, covers or scrolls it
// away: `seq 1 60; agent --inline` never showed its welcome. So inline
// mode starts with a print "in flight" (Model.printing): the settled items
// stay in the live region, drawn in the first frame, until the frame is
// on the terminal; then firstFrame releases the print, as printedMsg
// does, and they move to the scrollback above the frame.
//
// The program's output is a frameWatch: the first write that carries a
// frame (a line break: every frame of the chat has several rows, while
// terminal queries written before it have none) after View returned a
// sized frame closes drawn. A cmd waiting on drawn delivers
// firstFrameMsg. An output the program was given by its caller (tests)
// is not watched, and firstFrameWait gives up after firstFrameTimeout,
// so a terminal that never reports is no worse than before the gate.

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// firstFrameTimeout bounds the wait for the first frame: past it the
// prints go out as they did before the gate.
const firstFrameTimeout = 2 * time.Second

// firstFrameMsg says the first frame is on the terminal (or the wait gave
// up): the prints held since the start may go out.
type firstFrameMsg struct{}

// frameWatch is the program's output in inline mode: the terminal, which
// it writes through, and the news that the first frame reached it.
type frameWatch struct {
	*os.File
	armed atomic.Bool // View returned a frame drawn for the terminal's size
	once  sync.Once
	drawn chan struct{}
}

func newFrameWatch(f *os.File) *frameWatch {
	return &frameWatch{File: f, drawn: make(chan struct{})}
}

// arm notes that the frames written from now on are sized ones.
func (w *frameWatch) arm() { w.armed.Store(true) }

func (w *frameWatch) Write(p []byte) (int, error) {
	n, err := w.File.Write(p)
	if w.armed.Load() && bytes.IndexByte(p, '\n') >= 0 {
		w.once.Do(func() { close(w.drawn) })
	}
	return n, err
}

// firstFrameWait is the cmd that delivers firstFrameMsg when the first
// frame is drawn, or after firstFrameTimeout; drawn nil (no watch) waits
// for the timeout alone.
func firstFrameWait(drawn <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(firstFrameTimeout)
		defer t.Stop()
		select {
		case <-drawn:
		case <-t.C:
		}
		return firstFrameMsg{}
	}
}
