package tui

// Narrowing the terminal in inline mode: the terminal (xterm, tmux)
// rewraps the lines of the frame on the screen that are wider than the
// new width, so the old frame takes more rows than Bubble Tea drew. Its
// clear moves up only as many rows as it drew before erasing down, and
// the rows the rewrap added above that point stay on the screen (a stale
// copy of the rule line). rewrap remembers the last frame; on a narrowing
// it measures the display widths of its lines and moves the cursor up by
// the rows the rewrap added to the lines above the cursor (a raw write,
// which goes out before the renderer's next flush) and then clears, so
// the clear starts at the old frame's real top. A widening or a first size only
// clears (the terminal does not join the rows of a frame's lines, which
// never reach the width).

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// rewrap is the last inline frame and the width it was drawn at (0
// before the first size). The frame is measured only on a resize, never
// on each draw.
type rewrap struct {
	frame string
	width int
}

// drawn records frame, drawn at the terminal's width.
func (r *rewrap) drawn(frame string) { r.frame = frame }

// lineWidths is the display width of each line of frame.
func lineWidths(frame string) []int {
	var widths []int
	for l := range strings.SplitSeq(frame, "\n") {
		widths = append(widths, ansi.StringWidth(l))
	}
	return widths
}

// resized answers a new terminal width: nil for the first size or an
// unchanged width, else the clear the new frame is drawn after.
func (r *rewrap) resized(width int) tea.Cmd {
	old := r.width
	r.width = width
	if old == 0 || width == old {
		return nil
	}
	if k := extraRows(lineWidths(r.frame), old, width); k > 0 {
		return tea.Sequence(tea.Raw(ansi.CursorUp(k)), tea.ClearScreen)
	}
	return tea.ClearScreen
}

// extraRows is how many rows more than one each line of widths, but the
// last (the cursor's row, where the renderer leaves it at its start),
// takes once a terminal of width old is narrowed to width.
func extraRows(widths []int, old, width int) int {
	if width <= 0 || width >= old || len(widths) < 2 {
		return 0
	}
	k := 0
	for _, w := range widths[:len(widths)-1] {
		w = min(w, old)
		if w > width {
			k += (w+width-1)/width - 1
		}
	}
	return k
}
