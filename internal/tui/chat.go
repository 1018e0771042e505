package tui

// The chat view shows the part of the conversation that fits its height.
// It never lays out the whole conversation: it walks items from an anchor
// (the bottom while following, or the first visible line after the user
// scrolled) and asks only those items for their lines, which they cache.

// chatPos is a line of the conversation: line off of item idx.
type chatPos struct{ idx, off int }

type chatView struct {
	items         []item
	width, height int
	// follow keeps the newest line at the bottom (while streaming); it is
	// cleared when the user scrolls up and set again at the bottom.
	follow bool
	top    chatPos // first visible line, kept by layout
	// inline: the view is the live region of inline mode (inline.go):
	// items[:printed] are in the terminal's scrollback and not drawn, the
	// rest is laid out from the bottom, unpadded.
	inline  bool
	printed int

	// The last layout: the visible lines and the item of each row (-1
	// for padding).
	visible []string
	rows    []int

	// focus is the card the user moved to (focus.go); nil: the newest
	// on screen.
	focus item

	window renderWindow // renderwindow.go: what keeps its rendered lines

	earlier earlierState // earlier.go: the messages above the first
}

func newChatView() *chatView { return &chatView{follow: true} }

func (c *chatView) reset() {
	c.items = nil
	c.printed = 0
	c.follow = true
	c.top = chatPos{}
	c.earlier = earlierState{}
}

func (c *chatView) add(it item) { c.items = append(c.items, it) }

// notice adds a line from the chat itself to the conversation.
func (c *chatView) notice(kind noticeKind, text, hint string) {
	c.add(&noticeItem{kind: kind, text: text, hint: hint})
}

// remove takes an item out of the conversation.
func (c *chatView) remove(it item) {
	for i, x := range c.items {
		if x == it {
			c.items = append(c.items[:i], c.items[i+1:]...)
			if i < c.printed {
				c.printed--
			}
			c.top = chatPos{}
			c.follow = true
			return
		}
	}
}

// layout computes the visible lines.
func (c *chatView) layout(rc *renderCtx) {
	c.visible = c.visible[:0]
	c.rows = c.rows[:0]
	if c.height <= 0 {
		return
	}
	if c.inline {
		c.follow = true
		c.layoutBottom(rc)
		return
	}
	if c.follow || len(c.items) == 0 {
		c.layoutBottom(rc)
	} else {
		c.layoutFrom(rc, c.top)
	}
	// A short conversation sits just above the editor.
	if n := c.height - len(c.visible); n > 0 {
		padV := make([]string, n, c.height)
		padR := make([]int, n, c.height)
		for i := range padR {
			padR[i] = -1
		}
		c.visible = append(padV, c.visible...)
		c.rows = append(padR, c.rows...)
	}
	if first, last, ok := shownItems(c.rows); ok {
		c.window.sweep(c.items, first, last)
	}
}

// layoutBottom fills the view upwards from the last line.
func (c *chatView) layoutBottom(rc *renderCtx) {
	need := c.height
	idx := len(c.items) - 1
	var chunks [][]string
	first := 0
	for idx >= c.printed && need > 0 {
		ls := c.items[idx].lines(rc)
		if len(ls) > need {
			first = len(ls) - need
			chunks = append(chunks, ls[first:])
			need = 0
			break
		}
		chunks = append(chunks, ls)
		need -= len(ls)
		first = 0
		idx--
	}
	if idx < 0 {
		idx = 0
	}
	// Chunks are newest first.
	start := len(c.items) - len(chunks)
	for i := len(chunks) - 1; i >= 0; i-- {
		itemIdx := start + (len(chunks) - 1 - i)
		for _, l := range chunks[i] {
			c.visible = append(c.visible, l)
			c.rows = append(c.rows, itemIdx)
		}
	}
	if len(chunks) > 0 {
		c.top = chatPos{idx: start, off: first}
	} else {
		c.top = chatPos{}
	}
}

// layoutFrom fills the view downwards from p; if the conversation ends
// before the view is full, it is laid out from the bottom instead.
func (c *chatView) layoutFrom(rc *renderCtx, p chatPos) {
	if p.idx >= len(c.items) {
		c.follow = true
		c.layoutBottom(rc)
		return
	}
	idx, off := p.idx, p.off
	for idx < len(c.items) && len(c.visible) < c.height {
		ls := c.items[idx].lines(rc)
		if off >= len(ls) {
			off = max(0, len(ls)-1)
		}
		for _, l := range ls[off:] {
			if len(c.visible) == c.height {
				break
			}
			c.visible = append(c.visible, l)
			c.rows = append(c.rows, idx)
		}
		idx++
		off = 0
	}
	if len(c.visible) < c.height && idx >= len(c.items) && !(p.idx == 0 && p.off == 0) {
		// Scrolled past the end: stick to the bottom again.
		c.visible, c.rows = c.visible[:0], c.rows[:0]
		c.follow = true
		c.layoutBottom(rc)
	}
}

// scrollUp moves the view n lines towards the start.
func (c *chatView) scrollUp(rc *renderCtx, n int) {
	if len(c.items) == 0 {
		return
	}
	if c.follow {
		c.layoutBottom(rc)
	}
	p := c.top
	for n > 0 {
		if p.off >= n {
			p.off -= n
			n = 0
			break
		}
		n -= p.off
		if p.idx == 0 {
			p.off = 0
			break
		}
		p.idx--
		p.off = len(c.items[p.idx].lines(rc))
	}
	c.top = p
	c.follow = false
}

// scrollDown moves the view n lines towards the end, and follows again
// once the last line is visible.
func (c *chatView) scrollDown(rc *renderCtx, n int) {
	if c.follow {
		return
	}
	p := c.top
	for n > 0 && p.idx < len(c.items) {
		ls := len(c.items[p.idx].lines(rc))
		if p.off+n < ls {
			p.off += n
			n = 0
			break
		}
		n -= ls - p.off
		p.idx++
		p.off = 0
	}
	if p.idx >= len(c.items) || c.remaining(rc, p) <= c.height {
		c.follow = true
		return
	}
	c.top = p
}

// remaining counts the lines from p to the end, stopping past the height.
func (c *chatView) remaining(rc *renderCtx, p chatPos) int {
	n := 0
	for i := p.idx; i < len(c.items) && n <= c.height; i++ {
		ls := len(c.items[i].lines(rc))
		if i == p.idx {
			ls -= p.off
		}
		n += ls
	}
	return n
}

func (c *chatView) toBottom() { c.follow = true }

// toTop starts the view at the first line without laying out what lies
// between (a long session's every item).
func (c *chatView) toTop() {
	if len(c.items) > 0 {
		c.top, c.follow = chatPos{}, false
	}
}

// reveal scrolls so that item idx is in view: nothing moves when it is
// already; otherwise it starts the view.
func (c *chatView) reveal(rc *renderCtx, idx int) {
	for _, r := range c.rows {
		if r == idx {
			return
		}
	}
	c.top = chatPos{idx: idx}
	c.follow = false
}

// itemAt returns the item drawn on row y of the view.
func (c *chatView) itemAt(y int) (item, bool) {
	if y < 0 || y >= len(c.rows) || c.rows[y] < 0 || c.rows[y] >= len(c.items) {
		return nil, false
	}
	return c.items[c.rows[y]], true
}
