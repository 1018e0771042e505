package tui

// Markdown rendering is the slow part of drawing a conversation (about
// 1 ms per 3 KB with internal/tui/markdown, and a pathological text can
// take far longer), so it never runs inside Update. An assistant text is
// split into blocks at blank lines outside code fences; a finished block
// is rendered once per width and background, off the event loop, and
// cached on the block. While a reply streams only its open tail is
// re-rendered, at most tailRenderInterval apart. Until a render arrives a
// block is shown as plain wrapped text.

import (
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/tui/markdown"
)

// tailRenderInterval bounds how often a streaming tail is re-rendered
// (about 15 times a second).
const tailRenderInterval = 66 * time.Millisecond

// mdBlock is one top-level markdown block and its rendering.
type mdBlock struct {
	src string
	r   mdRendering
	// pending is the key of a render in flight, to ask only once.
	pending mdKey
}

// mdKey says what a rendering was made for.
type mdKey struct {
	width int
	dark  bool
	src   string
}

type mdRendering struct {
	key   mdKey
	lines []string
}

// mdDoc is the markdown of one text part, split into finished blocks and
// the open tail that is still streaming.
type mdDoc struct {
	b strings.Builder
	// whole is the text of a document finished when made (a part of a
	// resumed session), kept as given rather than copied into b, and
	// split into blocks only when first laid out (lazy until then);
	// renderwindow.go lets go of its blocks again out of view.
	whole  string
	lazy   bool
	done   int // offset in the text where the open tail starts
	blocks []*mdBlock
	tail   mdBlock
	final  bool
	// lastTail is when the tail was last sent to render; tailBusy is set
	// while a render of it runs, tailWake while a wake-up is scheduled.
	lastTail           time.Time
	tailBusy, tailWake bool
}

func newMarkdown(text string, final bool) *mdDoc {
	if final {
		return &mdDoc{final: true, whole: text, lazy: true}
	}
	d := &mdDoc{}
	d.b.WriteString(text)
	d.resplit()
	return d
}

func (d *mdDoc) text() string {
	if d.whole != "" {
		return d.whole
	}
	return d.b.String()
}

// ensureSplit splits a lazy document into its blocks.
func (d *mdDoc) ensureSplit() {
	if d.lazy {
		d.lazy = false
		d.resplit()
	}
}

// thaw moves a whole document's text into b before it changes.
func (d *mdDoc) thaw() {
	d.ensureSplit()
	if d.whole != "" {
		d.b.WriteString(d.whole)
		d.whole = ""
	}
}

// append adds streamed text.
func (d *mdDoc) append(s string) {
	d.thaw()
	d.b.WriteString(s)
	d.resplit()
}

// setText replaces the text (the part's final state); a text that only
// extends the current one is appended.
func (d *mdDoc) setText(s string, final bool) {
	cur := d.text()
	if s == cur && final == d.final {
		return
	}
	if strings.HasPrefix(s, cur) && (!d.final || final) {
		d.thaw()
		d.final = final
		d.b.WriteString(s[len(cur):])
		d.resplit()
		return
	}
	*d = *newMarkdown(s, final)
}

func (d *mdDoc) resplit() {
	src := d.text()
	blocks, rest := splitBlocks(src[d.done:], d.final)
	for _, s := range blocks {
		blk := &mdBlock{src: s}
		if strings.Trim(d.tail.r.key.src, "\n") == s {
			// The tail's last render was of exactly this block.
			blk.r = d.tail.r
			blk.r.key.src = s
		}
		d.blocks = append(d.blocks, blk)
	}
	if len(blocks) > 0 {
		d.tail.r = mdRendering{}
	}
	d.done += rest
	d.tail.src = src[d.done:]
}

// lines lays the document out at width: rendered blocks where renders
// exist, plain wrapped text elsewhere. missing lists the blocks to render.
func (d *mdDoc) lines(width int, dark bool) (out []string, missing []*mdBlock) {
	d.ensureSplit()
	add := func(ls []string) {
		if len(out) > 0 && len(ls) > 0 {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	for _, blk := range d.blocks {
		key := mdKey{width, dark, blk.src}
		if blk.r.key == key {
			add(blk.r.lines)
			continue
		}
		add(wrapText(blk.src, width))
		if blk.pending != key {
			missing = append(missing, blk)
		}
	}
	if strings.TrimSpace(d.tail.src) == "" {
		return out, missing
	}
	key := mdKey{width, dark, d.tail.src}
	r := d.tail.r
	switch {
	case r.key == key:
		add(r.lines)
	case r.key.width == width && r.key.dark == dark && strings.HasPrefix(d.tail.src, r.key.src):
		// A render of an earlier state of the tail: show it until the
		// next one arrives, with the text added since as plain text.
		add(r.lines)
		if extra := strings.Trim(d.tail.src[len(r.key.src):], "\n"); extra != "" {
			out = append(out, wrapText(extra, width)...)
		}
	default:
		add(wrapText(d.tail.src, width))
	}
	if r.key != key {
		missing = append(missing, &d.tail) // the scheduler throttles it
	}
	return out, missing
}

// rendered reports whether every block has its rendering for width and
// background, so that the document's lines are final.
func (d *mdDoc) rendered(width int, dark bool) bool {
	d.ensureSplit()
	for _, blk := range d.blocks {
		if blk.r.key != (mdKey{width, dark, blk.src}) {
			return false
		}
	}
	return strings.TrimSpace(d.tail.src) == "" || d.tail.r.key == mdKey{width, dark, d.tail.src}
}

// splitBlocks cuts markdown into top-level blocks at blank lines outside
// code fences. It returns the finished blocks and the offset of the
// unfinished rest; when final, the rest is a block too. A blank line does
// not end a block when the next line is indented or continues a list, so
// that loose lists and indented continuations render whole.
func splitBlocks(src string, final bool) (blocks []string, rest int) {
	end := len(src)
	if final && !strings.HasSuffix(src, "\n") {
		src += "\n" // the last line is complete
	}
	start, i := 0, 0
	var fence string // the open fence's marker, "" outside a fence
	emit := func(to int) {
		if s := strings.Trim(src[start:min(to, len(src))], "\n"); strings.TrimSpace(s) != "" {
			blocks = append(blocks, s)
		}
	}
scan:
	for i < len(src) {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		j += i
		line := src[i:j]
		switch {
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case markdown.FenceOf(line) != "":
			fence = markdown.FenceOf(line)
		case isBlank(line):
			if strings.TrimSpace(src[start:i]) == "" {
				start = j + 1
				break
			}
			next, at, ok := nextLine(src, j+1)
			if !ok {
				break scan
			}
			if continuesBlock(firstLine(src[start:i]), next) {
				break
			}
			emit(i)
			start, i = at, at
			continue scan
		}
		i = j + 1
	}
	if final {
		emit(len(src))
		return blocks, end
	}
	return blocks, min(start, end)
}

// nextLine finds the first non-blank line from k. A line still being
// streamed counts once it is enough to decide whether it continues the
// block before it; ok is false while it is not.
func nextLine(src string, k int) (line string, at int, ok bool) {
	for k < len(src) {
		e := strings.IndexByte(src[k:], '\n')
		if e < 0 {
			partial := src[k:]
			if isBlank(partial) {
				return "", 0, false
			}
			t := partial[0]
			if len(partial) >= 12 || !strings.ContainsRune(" \t-*+0123456789", rune(t)) {
				return partial, k, true
			}
			return "", 0, false
		}
		if l := src[k : k+e]; !isBlank(l) {
			return l, k, true
		}
		k += e + 1
	}
	return "", 0, false
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// continuesBlock reports whether next, after a blank line, belongs to the
// block starting with first.
func continuesBlock(first, next string) bool {
	if next[0] == ' ' || next[0] == '\t' {
		return true
	}
	return isListItem(first) && isListItem(next)
}

func isListItem(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && t[1] == ' ' {
		return true
	}
	n := 0
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n < 10 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' '
}

// renderMarkdown renders one block to lines of at most width cells, with
// no blank line at either end (the document places blocks) and no
// trailing spaces. It is safe for concurrent use.
func renderMarkdown(src string, width int, dark bool) []string {
	return markdown.Render(src, width, dark)
}
