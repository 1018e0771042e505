package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrapping works on atoms: pieces of styled text with no break
// opportunity inside. Between words the break is at a space (collapsed to
// one, dropped at the end of a line); between wide characters (CJK) there
// is a break opportunity with no space. An atom wider than the line is cut
// at grapheme boundaries.

// atom is an unbreakable piece of a paragraph.
type atom struct {
	segs  []seg
	width int
	// space is the style of the space before the atom (nil: no space).
	space *style
	// hard is a forced line break (the atom has no text).
	hard bool
}

// atomizer splits styled text into atoms.
type atomizer struct {
	atoms   []atom
	cur     atom
	inAtom  bool
	pending *style // a space seen since the last atom
}

func (z *atomizer) flush() {
	if z.inAtom {
		z.atoms = append(z.atoms, z.cur)
	}
	z.cur, z.inAtom = atom{}, false
}

// text adds text in one style; whitespace separates words.
func (z *atomizer) text(s string, st style, link string) {
	for len(s) > 0 {
		if c := s[0]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			z.flush()
			if z.pending == nil {
				sp := st
				z.pending = &sp
			}
			s = s[1:]
			continue
		}
		// A run up to the next space.
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		s = s[end:]
		z.word(word, st, link)
	}
}

// word adds a run with no spaces, making a break opportunity around wide
// characters.
func (z *atomizer) word(w string, st style, link string) {
	if isASCII(w) {
		z.add(w, len(w), st, link)
		return
	}
	start, width := 0, 0
	for i := 0; i < len(w); {
		g, gw := ansi.FirstGraphemeCluster(w[i:], ansi.GraphemeWidth)
		if len(g) == 0 {
			break
		}
		if gw >= 2 {
			if i > start {
				z.add(w[start:i], width, st, link)
			}
			z.flush()
			z.add(g, gw, st, link)
			z.flush()
			i += len(g)
			start, width = i, 0
			continue
		}
		width += gw
		i += len(g)
	}
	if start < len(w) {
		z.add(w[start:], width, st, link)
	}
}

func (z *atomizer) add(text string, width int, st style, link string) {
	if !z.inAtom {
		z.cur = atom{space: z.pending}
		z.pending = nil
		z.inAtom = true
	}
	z.cur.segs = append(z.cur.segs, seg{text: text, st: st, link: link})
	z.cur.width += width
}

// hardBreak forces a new line.
func (z *atomizer) hardBreak() {
	z.flush()
	z.atoms = append(z.atoms, atom{hard: true})
	z.pending = nil
}

func (z *atomizer) done() []atom {
	z.flush()
	return z.atoms
}

// wrapAtoms lays atoms out in lines of at most width cells.
func wrapAtoms(atoms []atom, width int) [][]seg {
	width = max(width, 1)
	var lines [][]seg
	var line []seg
	w := 0
	started := false
	newLine := func() {
		lines = append(lines, line)
		line, w, started = nil, 0, false
	}
	for _, a := range atoms {
		if a.hard {
			newLine()
			continue
		}
		space := 0
		if a.space != nil && started {
			space = 1
		}
		if w+space+a.width <= width {
			if space == 1 {
				line = append(line, seg{text: " ", st: spaceStyle(*a.space, line, a.segs)})
			}
			line = append(line, a.segs...)
			w += space + a.width
			started = true
			continue
		}
		if started {
			newLine()
		}
		if a.width <= width {
			line = append(line, a.segs...)
			w, started = a.width, true
			continue
		}
		// Wider than a line: cut it into lines.
		rest := a.segs
		for len(rest) > 0 {
			var head []seg
			var hw int
			head, hw, rest = cutSegs(rest, width)
			line, w, started = head, hw, true
			if len(rest) > 0 {
				newLine()
			}
		}
	}
	if started || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// spaceStyle styles a space between two atoms: it continues an underline
// or strike only when both sides share it (a link of several words).
func spaceStyle(st style, before, after []seg) style {
	if len(before) == 0 || len(after) == 0 {
		return style{}
	}
	l, r := before[len(before)-1], after[0]
	if l.st == r.st && l.st == st {
		return st
	}
	return style{}
}

// cutSegs takes at most width cells (at least one grapheme) from segs.
// It looks only as far as the cut and reuses segs for the rest (the seg
// cut in two is changed in place), so cutting a long line into many is
// linear.
func cutSegs(segs []seg, width int) (head []seg, w int, rest []seg) {
	for i, s := range segs {
		cut, cw := fitPrefix(s.text, width-w, w == 0)
		if cut == len(s.text) {
			head = append(head, s)
			w += cw
			continue
		}
		if cut > 0 {
			head = append(head, seg{text: s.text[:cut], st: s.st, link: s.link})
			w += cw
		}
		segs[i].text = s.text[cut:]
		return head, w, segs[i:]
	}
	return head, w, nil
}

// fitPrefix returns the length in bytes and the width of the longest
// prefix of s that fits in room cells, cut between graphemes; with force,
// at least one grapheme.
func fitPrefix(s string, room int, force bool) (n, w int) {
	for n < len(s) {
		if s[n] < 0x80 && (n+1 == len(s) || s[n+1] < 0x80) {
			// An ASCII character not followed by a combining mark.
			if w+1 > room && !(force && n == 0) {
				return n, w
			}
			n++
			w++
			continue
		}
		g, gw := ansi.FirstGraphemeCluster(s[n:], ansi.GraphemeWidth)
		if len(g) == 0 || w+gw > room && !(force && n == 0) {
			return n, w
		}
		n += len(g)
		w += gw
	}
	return n, w
}

// textWidth is the width of plain text in cells.
func textWidth(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// isASCII reports whether s is printable ASCII, one cell a byte.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// segsWidth is the width of a line of segs.
func segsWidth(segs []seg) int {
	w := 0
	for _, s := range segs {
		w += textWidth(s.text)
	}
	return w
}

// trimRight drops trailing spaces from a line.
func trimRight(segs []seg) []seg {
	for len(segs) > 0 {
		last := segs[len(segs)-1]
		t := strings.TrimRight(last.text, " ")
		if t != "" {
			segs[len(segs)-1].text = t
			return segs
		}
		segs = segs[:len(segs)-1]
	}
	return segs
}
