package tui

// The chat holds rendered lines only for what is on screen and a window
// around it. Every item keeps what it is made from (its text, its tool
// state) and renders itself again on demand; the lines it rendered, the
// markdown renderings of its blocks and a finished text's blocks
// themselves are dropped once the view is more than renderKeepItems items
// away from it. A sweep runs after a layout whose first visible item moved
// by half that since the last sweep, so a long session scrolled
// through from end to start holds about as many rendered lines as a
// short one.

// renderKeepItems is how many items on each side of the view keep their
// rendered lines: a few pages of a typical conversation, so that paging
// back and forth, or a wheel's scrolling, renders nothing again.
const renderKeepItems = 40

// renderWindow remembers where the last sweep kept renderings.
type renderWindow struct {
	top   int // the first visible item at the last sweep
	swept bool
}

// sweep drops the renderings of items more than renderKeepItems away
// from the visible ones [first, last], once the view has moved by half
// that since the last sweep (or on the first layout). It walks every
// item, so renderings made elsewhere (a search, a copy, the terminal's
// scrollback in inline mode) are let go of too.
func (w *renderWindow) sweep(items []item, first, last int) {
	if w.swept && abs(first-w.top) < renderKeepItems/2 {
		return
	}
	w.top, w.swept = first, true
	lo, hi := first-renderKeepItems, last+renderKeepItems
	for i, it := range items {
		if i >= lo && i <= hi {
			continue
		}
		if h, ok := it.(holdsRendering); ok && h.rendered() {
			h.dropRendering()
		}
	}
}

// shownItems returns the first and last item of a layout's rows (-1 is
// padding).
func shownItems(rows []int) (first, last int, ok bool) {
	first = -1
	for _, r := range rows {
		if r < 0 {
			continue
		}
		if first < 0 {
			first = r
		}
		last = r
	}
	return first, last, first >= 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// holdsRendering is an item whose rendered lines can be dropped and
// rendered again (lineCache, markdown blocks).
type holdsRendering interface {
	// rendered reports whether the item holds rendered lines.
	rendered() bool
	// dropRendering lets go of them; the next lines call renders again.
	dropRendering()
}

func (c *lineCache) drop() { *c = lineCache{} }

func (u *userItem) rendered() bool      { return u.cache.ok }
func (u *userItem) dropRendering()      { u.cache.drop() }
func (t *textItem) rendered() bool      { return t.cache.ok || t.doc.holdsRenderings() }
func (t *textItem) dropRendering()      { t.cache.drop(); t.doc.dropRenderings() }
func (r *reasoningItem) rendered() bool { return r.cache.ok }
func (r *reasoningItem) dropRendering() { r.cache.drop() }
func (n *noticeItem) rendered() bool    { return n.cache.ok }
func (n *noticeItem) dropRendering()    { n.cache.drop() }
func (r *retryItem) rendered() bool     { return r.cache.ok }
func (r *retryItem) dropRendering()     { r.cache.drop() }
func (t *toolItem) rendered() bool      { return t.cache.ok }
func (t *toolItem) dropRendering()      { t.cache.drop() }
func (p *patchItem) rendered() bool     { return p.cache.ok }
func (p *patchItem) dropRendering()     { p.cache.drop() }
func (c *chipItem) rendered() bool      { return c.cache.ok }
func (c *chipItem) dropRendering()      { c.cache.drop() }

func (c *compactionItem) rendered() bool {
	return c.cache.ok || c.body != nil && c.body.rendered()
}

func (c *compactionItem) dropRendering() {
	c.cache.drop()
	if c.body != nil {
		c.body.dropRendering()
	}
}

// holdsRenderings reports whether a block holds a markdown rendering.
func (d *mdDoc) holdsRenderings() bool {
	for _, b := range d.blocks {
		if b.r.lines != nil {
			return true
		}
	}
	return d.tail.r.lines != nil
}

// dropRenderings lets go of the blocks' markdown renderings, and a whole
// document's blocks too (split again when next laid out); a render in
// flight still lands on its block (and is dropped by a later sweep).
func (d *mdDoc) dropRenderings() {
	if d.whole != "" && !d.tailBusy && !d.tailWake {
		d.blocks, d.done, d.tail, d.lazy = nil, 0, mdBlock{}, true
		return
	}
	for _, b := range d.blocks {
		b.r = mdRendering{}
	}
	d.tail.r = mdRendering{}
}
