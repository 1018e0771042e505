package tui

// A drawer whose body can be longer than the screen scrolls: ↑↓ by a
// line, pgup/pgdn by a page, home/end to the ends. Only a body that does
// not fit takes those keys; otherwise they go where they went before.

import tea "charm.land/bubbletea/v2"

// scroller is the scroll state of a drawer's body.
type scroller struct {
	top int // the first line shown
	// page and overflow are from the last window: the lines shown, and
	// whether the body was longer.
	page     int
	overflow bool
}

// scrollKey moves the window for a scrolling key; false when the key is
// not one or the body fits.
func (s *scroller) scrollKey(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !s.overflow {
		return false
	}
	switch k.String() {
	case "up":
		s.top--
	case "down":
		s.top++
	case "pgup":
		s.top -= max(1, s.page-1)
	case "pgdown":
		s.top += max(1, s.page-1)
	case "home":
		s.top = 0
	case "end":
		s.top = 1 << 30
	default:
		return false
	}
	s.top = max(0, s.top) // window clamps the end
	return true
}

// window returns the body's lines that fit in a drawer of height rows,
// and the footer, which says when there is more.
func (s *scroller) window(body []string, height int, footer string) ([]string, string) {
	n := max(1, height-2)
	s.page, s.overflow = n, len(body) > n
	if !s.overflow {
		s.top = 0
		return body, footer
	}
	s.top = min(s.top, len(body)-n)
	return body[s.top : s.top+n], "↑↓ pgup pgdn scroll · " + footer
}
