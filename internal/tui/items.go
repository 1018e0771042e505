package tui

// The conversation is a list of items: user messages, assistant text,
// reasoning, tool cards and markers. Each item renders itself to lines for
// a width and caches them until it changes, or until the view is far from
// it (renderwindow.go); the chat view asks only the items it shows.

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// renderCtx is what items render with.
type renderCtx struct {
	width int
	th    *theme
	// gen changes when anything every item depends on changes (theme,
	// expand-all); items re-render on a change.
	gen       int
	expandAll bool
	// missing collects markdown blocks that need rendering.
	missing []mdJob
}

// mdJob is a markdown block to render for an item.
type mdJob struct {
	owner *textItem
	blk   *mdBlock
	key   mdKey
	tail  bool
}

// item is one entry of the conversation.
type item interface {
	// lines returns the item's lines at rc.width, ending with a blank
	// separator line.
	lines(rc *renderCtx) []string
	// toggle expands or collapses the item and reports whether it can.
	toggle() bool
}

// lineCache keeps an item's last rendering.
type lineCache struct {
	width, gen, ver int
	lines           []string
	ok              bool
}

func (c *lineCache) get(rc *renderCtx, ver int) ([]string, bool) {
	if c.ok && c.width == rc.width && c.gen == rc.gen && c.ver == ver {
		return c.lines, true
	}
	return nil, false
}

func (c *lineCache) put(rc *renderCtx, ver int, lines []string) []string {
	*c = lineCache{width: rc.width, gen: rc.gen, ver: ver, lines: lines, ok: true}
	return lines
}

// indent prefixes every line.
func indent(lines []string, prefix string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if l == "" {
			out[i] = ""
			continue
		}
		out[i] = prefix + l
	}
	return out
}

// collapsedUserLines is how many lines of a long user message are shown.
const collapsedUserLines = 12

// userItem is a message the user sent.
type userItem struct {
	text      string
	synthetic bool
	expanded  bool
	ver       int
	cache     lineCache
}

func newUserItem(text string, synthetic bool) *userItem {
	return &userItem{text: strings.TrimRight(termsafe.Strip(text), "\n"), synthetic: synthetic}
}

func (u *userItem) toggle() bool {
	u.expanded = !u.expanded
	u.ver++
	return true
}

func (u *userItem) lines(rc *renderCtx) []string {
	if ls, ok := u.cache.get(rc, u.ver); ok {
		return ls
	}
	th := rc.th
	if u.synthetic {
		return u.cache.put(rc, u.ver, []string{th.Faint.Render(fit("↻ "+oneLine(u.text, rc.width), rc.width)), ""})
	}
	body := wrapText(u.text, rc.width-2)
	if !u.expanded && !rc.expandAll && len(body) > collapsedUserLines+2 {
		more := len(body) - collapsedUserLines
		body = append(body[:collapsedUserLines:collapsedUserLines], th.Dim.Render(fmt.Sprintf("… %d more lines (click or ctrl+o to expand)", more)))
	}
	out := make([]string, 0, len(body)+1)
	bar := th.UserBar.Render("▌")
	for _, l := range body {
		out = append(out, bar+" "+th.UserText.Render(l))
	}
	return u.cache.put(rc, u.ver, append(out, ""))
}

// textItem is an assistant text part, rendered as markdown.
type textItem struct {
	doc   *mdDoc
	ver   int
	cache lineCache
}

func newTextItem(text string, final bool) *textItem {
	return &textItem{doc: newMarkdown(termsafe.Strip(text), final)}
}

func (t *textItem) toggle() bool { return false }

func (t *textItem) append(delta string) {
	t.doc.append(termsafe.Strip(delta))
	t.ver++
}

func (t *textItem) set(text string, final bool) {
	t.doc.setText(termsafe.Strip(text), final)
	t.ver++
}

// streaming reports whether the text is still growing.
func (t *textItem) streaming() bool { return !t.doc.final }

func (t *textItem) lines(rc *renderCtx) []string {
	ls, ok := t.cache.get(rc, t.ver)
	if !ok {
		body, missing := t.doc.lines(rc.width-2, rc.th.Dark)
		ls = t.cache.put(rc, t.ver, append(indent(body, "  "), ""))
		for _, blk := range missing {
			rc.missing = append(rc.missing, mdJob{owner: t, blk: blk, key: mdKey{rc.width - 2, rc.th.Dark, blk.src}, tail: blk == &t.doc.tail})
		}
	}
	return ls
}

// reasoningItem is the model's reasoning text: dimmed, collapsed to a
// line unless expanded.
type reasoningItem struct {
	b         strings.Builder
	streaming bool
	expanded  bool
	ver       int
	cache     lineCache
}

func (r *reasoningItem) toggle() bool {
	r.expanded = !r.expanded
	r.ver++
	return true
}

func (r *reasoningItem) lines(rc *renderCtx) []string {
	if ls, ok := r.cache.get(rc, r.ver); ok {
		return ls
	}
	th := rc.th
	text := strings.TrimSpace(r.b.String())
	words := len(strings.Fields(text))
	label := "∴ thought"
	if r.streaming {
		label = "∴ thinking…"
	}
	head := th.Faint.Render(fmt.Sprintf("%s (%d words)", label, words))
	var out []string
	if r.expanded || rc.expandAll {
		hint := " · click to collapse"
		if rc.expandAll && !r.expanded {
			hint = " · ctrl+o to collapse"
		}
		out = append(out, head+th.Dim.Render(hint))
		for _, l := range wrapText(text, rc.width-4) {
			out = append(out, "  "+th.Faint.Render("│ "+l))
		}
	} else {
		out = append(out, head+th.Dim.Render(" · click or ctrl+o to expand"))
		if r.streaming {
			// Only the end is shown: wrap only the end.
			end := text
			if i := strings.LastIndexByte(text[:max(0, len(text)-rc.width*2)], '\n'); i >= 0 {
				end = text[i+1:]
			}
			if cut := len(end) - rc.width*4; cut > 0 {
				for cut < len(end) && !utf8.RuneStart(end[cut]) {
					cut++
				}
				end = "…" + end[cut:]
			}
			body := wrapText(end, rc.width-4)
			if len(body) > 2 {
				body = body[len(body)-2:]
			}
			for _, l := range body {
				out = append(out, "  "+th.Faint.Render("│ "+l))
			}
		}
	}
	return r.cache.put(rc, r.ver, append(out, ""))
}

// noticeKind styles a notice.
type noticeKind int

const (
	noticeInfo noticeKind = iota
	noticeWarn
	noticeError
	noticeMarker
)

// noticeItem is a line or two from the agent itself: errors with what to
// do, markers for pruning and compaction, hints.
type noticeItem struct {
	kind  noticeKind
	text  string
	hint  string
	ver   int
	cache lineCache
}

func (n *noticeItem) toggle() bool { return false }

func (n *noticeItem) lines(rc *renderCtx) []string {
	if ls, ok := n.cache.get(rc, n.ver); ok {
		return ls
	}
	th := rc.th
	var out []string
	switch n.kind {
	case noticeMarker:
		label := " " + n.text + " "
		w := rc.width - 2
		side := max(2, (w-len([]rune(label)))/2)
		line := strings.Repeat("─", side) + label + strings.Repeat("─", side)
		out = append(out, th.Dim.Render(fit(line, rc.width)))
	default:
		style, icon := th.Dim, "· "
		switch n.kind {
		case noticeWarn:
			style, icon = th.WarnText, "! "
		case noticeError:
			style, icon = th.ErrorText, "✗ "
		}
		for i, l := range wrapText(n.text, rc.width-2) {
			if i == 0 {
				out = append(out, style.Render(icon+l))
			} else {
				out = append(out, style.Render("  "+l))
			}
		}
	}
	if n.hint != "" {
		for _, l := range wrapText(n.hint, rc.width-2) {
			out = append(out, th.Dim.Render("  "+l))
		}
	}
	return n.cache.put(rc, n.ver, append(out, ""))
}

// retryItem is a retry the loop waits for, with a countdown.
type retryItem struct {
	info  message.RetryInfo
	until time.Time
	left  int // whole seconds left, as last drawn
	done  bool
	ver   int
	cache lineCache
}

func (r *retryItem) toggle() bool { return false }

// tick updates the countdown; it reports whether the item changed.
func (r *retryItem) tick(now time.Time) bool {
	if r.done {
		return false
	}
	left := int(r.until.Sub(now).Round(time.Second) / time.Second)
	if left < 0 {
		left = 0
	}
	if left == r.left {
		return false
	}
	r.left = left
	r.ver++
	return true
}

func (r *retryItem) finish() {
	if !r.done {
		r.done = true
		r.ver++
	}
}

func (r *retryItem) lines(rc *renderCtx) []string {
	if ls, ok := r.cache.get(rc, r.ver); ok {
		return ls
	}
	th := rc.th
	reason := oneLine(termsafe.Strip(r.info.Reason), max(10, rc.width-30))
	var s string
	switch {
	case r.done:
		s = th.Dim.Render(fmt.Sprintf("↻ retried (attempt %d): %s", r.info.Attempt, reason))
	case r.left > 0:
		s = th.WarnText.Render(fmt.Sprintf("↻ retrying in %ds (attempt %d): %s", r.left, r.info.Attempt, reason))
	default:
		s = th.WarnText.Render(fmt.Sprintf("↻ retrying now (attempt %d): %s", r.info.Attempt, reason))
	}
	return r.cache.put(rc, r.ver, []string{fit(s, rc.width), ""})
}
