package markdown

import (
	"strconv"
	"strings"

	"github.com/ctxloop/agent/internal/tui/markdown/gfm"
)

// The block renderer walks the document once. Containers (block quotes,
// list items) push a prefix — the bar of a quote, the bullet of an item
// and the indent under it — and every line a leaf block writes gets the
// prefixes of the containers open around it, so nesting costs no copying
// of lines.

// prefix is what a container puts before its lines: first before the
// first line, rest before the others. Both are width cells wide.
type prefix struct {
	first, rest []seg
	width       int
	used        bool
}

type renderer struct {
	p     *palette
	width int
	stack []*prefix
	out   []string
	// blank is, when a blank line is due before the next line, how many
	// containers were open when it was asked for (-1: none due).
	blank int
}

// avail is the width left for content inside the open containers.
func (r *renderer) avail() int {
	w := r.width
	for _, p := range r.stack {
		w -= p.width
	}
	return max(w, 1)
}

// push opens a container; past maxDepth, or when its indent would leave
// too little room, it indents nothing.
func (r *renderer) push(first, rest []seg) {
	w := segsWidth(first)
	if len(r.stack) >= maxDepth || r.avail()-w < minContent {
		r.stack = append(r.stack, &prefix{used: true})
		return
	}
	r.stack = append(r.stack, &prefix{first: first, rest: rest, width: w})
}

func (r *renderer) pop() { r.stack = r.stack[:len(r.stack)-1] }

// line writes one line of content inside the open containers.
func (r *renderer) line(segs []seg) {
	if r.blank >= 0 {
		depth := min(r.blank, len(r.stack))
		r.blank = -1
		if len(r.out) > 0 {
			r.writeLine(nil, r.stack[:depth], false)
		}
	}
	r.writeLine(segs, r.stack, true)
}

func (r *renderer) writeLine(segs []seg, stack []*prefix, content bool) {
	var all []seg
	for _, p := range stack {
		if !p.used && content {
			all = append(all, p.first...)
			p.used = true
		} else {
			all = append(all, p.rest...)
		}
	}
	all = trimRight(append(all, segs...))
	var b strings.Builder
	emit(&b, all)
	r.out = append(r.out, b.String())
}

// separate asks for a blank line before the next block.
func (r *renderer) separate() {
	if r.blank < 0 {
		r.blank = len(r.stack)
	}
}

// children renders the children of a container node, a blank line
// between them unless tight.
func (r *renderer) children(n *gfm.Node, tight bool) {
	for c := n.FirstChild; c != nil; c = c.Next {
		if c != n.FirstChild && !tight {
			r.separate()
		}
		r.block(c, tight)
	}
}

// blocks renders a document.
func (r *renderer) blocks(doc *gfm.Node) { r.children(doc, false) }

func (r *renderer) block(n *gfm.Node, tight bool) {
	switch n.Kind {
	case gfm.Paragraph:
		r.paragraph(n, style{})
	case gfm.Heading:
		r.heading(n)
	case gfm.ThematicBreak:
		r.line([]seg{{text: strings.Repeat("─", r.avail()), st: r.p.rule}})
	case gfm.CodeBlock:
		r.code(n.Text, n.Info)
	case gfm.HTMLBlock:
		for l := range strings.Lines(strings.TrimRight(n.Text, "\n")) {
			r.verbatim(expandTabs(strings.TrimSuffix(l, "\n")), r.p.html)
		}
	case gfm.Blockquote:
		bar := []seg{{text: "│ ", st: r.p.quote}}
		r.push(bar, bar)
		r.children(n, false)
		r.pop()
	case gfm.List:
		r.list(n)
	case gfm.Table:
		r.table(n)
	default:
		r.children(n, tight)
	}
}

func (r *renderer) paragraph(n *gfm.Node, st style) {
	for _, l := range wrapAtoms(r.inlines(n, st), r.avail()) {
		r.line(l)
	}
}

func (r *renderer) heading(n *gfm.Node) {
	if n.Level == 1 {
		// A bar of colour with the title in it.
		for _, l := range wrapAtoms(r.inlines(n, r.p.h1), max(r.avail()-2, 1)) {
			pad := seg{text: " ", st: r.p.h1}
			l = append(append([]seg{pad}, l...), pad)
			for i := range l {
				l[i].st = r.p.h1.merge(l[i].st)
			}
			r.line(l)
		}
		return
	}
	mark := strings.Repeat("#", n.Level) + " "
	var z atomizer
	z.add(mark[:len(mark)-1], len(mark)-1, r.p.heading, "")
	z.flush()
	sp := style{}
	z.pending = &sp
	r.inlineInto(&z, n, r.p.heading, "")
	for _, l := range wrapAtoms(z.done(), r.avail()) {
		r.line(l)
	}
}

// verbatim writes a line as it is, cut at the width.
func (r *renderer) verbatim(l string, st style) {
	w := r.avail()
	segs := []seg{{text: l, st: st}}
	for {
		head, _, rest := cutSegs(segs, w)
		r.line(head)
		if len(rest) == 0 {
			return
		}
		segs = rest
	}
}

// codeIndent is the indent of a code block's lines.
const codeIndent = "  "

// code writes a code block: its lines verbatim, coloured, indented; a
// line wider than the room is wrapped after a space where one is close
// to the edge, else cut.
func (r *renderer) code(text, info string) {
	text = strings.TrimSuffix(text, "\n")
	var tabbed strings.Builder
	for l := range strings.Lines(text) {
		tabbed.WriteString(expandTabs(l))
	}
	lines := splitTokens(highlight(tabbed.String(), info), r.p)
	room := r.avail()
	indent := codeIndent
	if room-len(indent) < minContent {
		indent = ""
	}
	room -= len(indent)
	for _, segs := range lines {
		left := segsWidth(segs)
		for {
			var head []seg
			if left > room {
				var used int
				head, segs, used = breakCode(segs, max(room, 1))
				left -= used
			} else {
				head, segs = segs, nil
			}
			r.line(append([]seg{{text: indent}}, head...))
			if len(segs) == 0 {
				break
			}
		}
	}
}

// splitTokens turns tokens into lines of styled segments.
func splitTokens(toks []token, p *palette) [][]seg {
	lines := [][]seg{nil}
	for _, t := range toks {
		st := p.tok[t.kind]
		for {
			i := strings.IndexByte(t.text, '\n')
			if i < 0 {
				if t.text != "" {
					lines[len(lines)-1] = append(lines[len(lines)-1], seg{text: t.text, st: st})
				}
				break
			}
			if i > 0 {
				lines[len(lines)-1] = append(lines[len(lines)-1], seg{text: t.text[:i], st: st})
			}
			lines = append(lines, nil)
			t.text = t.text[i+1:]
		}
	}
	return lines
}

// breakCode cuts a code line at width cells or, when a space lies in the
// last third of that, after the space. used is the width taken from the
// line.
func breakCode(segs []seg, width int) (head, rest []seg, used int) {
	// The text of the first width cells, and the character after them.
	var b strings.Builder
	room := width
	for _, s := range segs {
		n, w := fitPrefix(s.text, room, false)
		b.WriteString(s.text[:n])
		room -= w
		if n < len(s.text) {
			b.WriteString(s.text[n:min(len(s.text), n+1)])
			break
		}
	}
	text := b.String()
	cut := width
	switch sp := strings.LastIndexByte(text, ' '); {
	case sp < 0:
	case textWidth(text[:sp]) == width:
		// The cut falls on a space: it ends the line.
		head, used, rest = cutSegs(segs, width)
		if len(rest) > 0 {
			rest[0].text = rest[0].text[1:]
			used++
			if rest[0].text == "" {
				rest = rest[1:]
			}
		}
		return head, rest, used
	case textWidth(text[:sp+1]) >= width*2/3 && sp > 0:
		cut = textWidth(text[:sp+1])
	}
	head, used, rest = cutSegs(segs, cut)
	return head, rest, used
}

// list writes a list: each item's first line after its marker, the rest
// indented under it.
func (r *renderer) list(n *gfm.Node) {
	depth := 0
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Kind == gfm.List {
			depth++
		}
	}
	count := n.ChildCount()
	numW := len(strconv.Itoa(n.Start + count - 1))
	i := 0
	for item := n.FirstChild; item != nil; item = item.Next {
		if i > 0 && !n.Tight {
			r.separate()
		}
		var mark string
		st := r.p.marker
		if n.Ordered {
			num := strconv.Itoa(n.Start + i)
			mark = strings.Repeat(" ", numW-len(num)) + num + string(n.Marker) + " "
		} else {
			mark = [...]string{"• ", "◦ ", "▪ "}[depth%3]
		}
		if box := taskBox(item); box != nil {
			mark = "[ ] "
			if box.Checked {
				mark, st = "[✓] ", r.p.checked
			}
		}
		w := textWidth(mark)
		r.push([]seg{{text: mark, st: st}}, []seg{{text: strings.Repeat(" ", w)}})
		if item.FirstChild == nil {
			r.line(nil)
		}
		r.children(item, n.Tight)
		r.pop()
		i++
	}
}

// taskBox finds a task list item's check box (drawn as its marker; the
// inline renderer skips it).
func taskBox(item *gfm.Node) *gfm.Node {
	if first := item.FirstChild; first != nil && first.FirstChild != nil && first.FirstChild.Kind == gfm.TaskCheckBox {
		return first.FirstChild
	}
	return nil
}
