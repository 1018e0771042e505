// Package markdown renders Markdown to styled terminal lines for the chat.
//
// The contract: Render takes Markdown text, a width in cells and the
// background (dark or light) and returns lines of at most width cells,
// styled with SGR sequences (and OSC 8 hyperlinks around links), with no
// blank lines before the first or after the last line and no trailing
// spaces. It is pure — no I/O, no global state but lazily built,
// read-only tables — and safe for concurrent use.
//
// What it shows: headings, paragraphs wrapped at the width (wide CJK and
// emoji counted as two cells), emphasis, strong, strikethrough, code spans,
// links (text, then the URL when it differs), bullet, ordered and task
// lists, block quotes, thematic breaks, GFM tables (columns aligned,
// cells wrapped to fit), and code blocks kept verbatim, indented and
// coloured by a small highlighter of its own (highlight.go).
//
// Safety: text from a model may carry terminal escapes. Every control
// character is removed from the input and from the text that entity
// references decode to (&#27; is ESC), so the only escape sequences in the
// output are those the renderer writes. Hostile input is bounded: the
// parser (package gfm, our own) is linear on every text, and a text too
// large, too deeply nested or with many link destinations or raw HTML
// openers is shown as plain wrapped text instead (see plainOnly), and
// containers deeper than maxDepth stop indenting.
package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/markdown/gfm"
)

// Limits on what is parsed as Markdown. Above them the text is shown
// plain. The parser (package gfm) is linear on every shape, so these only
// bound the work and the nesting; they date from goldmark, which was
// quadratic on the shapes the last three describe.
const (
	// maxMarkdownBytes bounds the text parsed as Markdown. A reply is
	// rendered a block at a time, so a real block is far below it.
	maxMarkdownBytes = 256 << 10
	// maxNesting bounds the block quotes and lists a line may open.
	maxNesting = 32
	// maxLinkScan bounds, summed over lines, the line's length times the
	// link destinations opened in it ("[a](" repeated).
	maxLinkScan = 4 << 20
	// maxHTMLScan bounds the text's length times the raw HTML openers
	// ("<?", "<!") in it.
	maxHTMLScan = 64 << 20
	// maxDepth is the deepest container that still indents its content.
	maxDepth = 12
	// minContent is the narrowest content a container's indent may leave.
	minContent = 8
)

// Render renders src at width cells on a dark or light background.
func Render(src string, width int, dark bool) []string {
	width = max(width, 1)
	src = strings.ReplaceAll(termsafe.Strip(src), "\r", "")
	if strings.TrimSpace(src) == "" {
		return nil
	}
	var lines []string
	if plainOnly(src) {
		lines = plain(src, width)
	} else {
		lines = rendered(src, width, dark)
	}
	return finish(lines, width)
}

// parse is the Markdown parser (a variable for the test of a panic).
var parse = gfm.Parse

// rendered parses and renders src; a text the parser or the renderer
// cannot handle is shown plain rather than ending the process (the chat
// renders off its event loop, where a panic is not recovered).
func rendered(src string, width int, dark bool) (lines []string) {
	defer func() {
		if recover() != nil {
			lines = plain(src, width)
		}
	}()
	r := &renderer{p: paletteFor(dark), width: width, blank: -1}
	r.blocks(parse(src))
	return r.out
}

// finish holds the contract on the lines: none wider than width, no blank
// line at either end.
func finish(lines []string, width int) []string {
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "")
		}
	}
	return lines
}

// plainOnly reports whether src is to be shown as plain text: too large,
// too deeply nested, or with constructs the parser would take too long
// over.
func plainOnly(src string) bool {
	if len(src) > maxMarkdownBytes {
		return true
	}
	if n := strings.Count(src, "<?") + strings.Count(src, "<!"); n*len(src) > maxHTMLScan {
		return true
	}
	scan := 0
	fence := ""
	for line := range strings.Lines(src) {
		if fence != "" {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := FenceOf(line); f != "" {
			fence = f
			continue
		}
		if nesting(line) > maxNesting {
			return true
		}
		if n := strings.Count(line, "]("); n > 0 {
			scan += n * len(line)
			if scan > maxLinkScan {
				return true
			}
		}
	}
	return false
}

// FenceOf returns the code fence a line opens (``` or ~~~ with any extra
// length, indented at most 3 spaces), or "".
func FenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == ch {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// nesting counts the block quote and list markers at the start of a line
// (an upper bound of the containers it opens or continues).
func nesting(line string) int {
	n := 0
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			n++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			n++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 10 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				n++
				i = j + 2
				continue
			}
			return n
		default:
			return n
		}
	}
	return n
}

// plain wraps text that is not parsed: tabs expanded, long lines wrapped
// at spaces or cut. It works on strings, with no styling, so that the
// largest texts cost least.
func plain(src string, width int) []string {
	var out []string
	for line := range strings.Lines(src) {
		line = strings.TrimRight(expandTabs(strings.TrimSuffix(line, "\n")), " ")
		if len(line) <= width && isASCII(line) {
			out = append(out, line)
			continue
		}
		out = wrapPlain(out, line, width)
	}
	return out
}

// wrapPlain appends line wrapped at width: words are kept whole when they
// fit, runs of spaces between words end a line or become one space.
func wrapPlain(out []string, line string, width int) []string {
	var b strings.Builder
	w := 0
	first := true // the indentation of the source line is kept
	for len(line) > 0 {
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		end := strings.IndexByte(line[sp:], ' ')
		if end < 0 {
			end = len(line) - sp
		}
		word := line[sp : sp+end]
		line = line[sp+end:]
		ww := textWidth(word)
		gap := 0
		switch {
		case first:
			gap, first = sp, false
		case w > 0:
			gap = 1
		}
		if w+gap+ww <= width {
			b.WriteString(strings.Repeat(" ", gap))
			b.WriteString(word)
			w += gap + ww
			continue
		}
		if w > 0 {
			out = append(out, b.String())
			b.Reset()
			w = 0
		}
		for ww > width {
			n, nw := fitPrefix(word, width, true)
			out = append(out, word[:n])
			word, ww = word[n:], ww-nw
		}
		b.WriteString(word)
		w = ww
	}
	if w > 0 || b.Len() == 0 {
		out = append(out, b.String())
	}
	return out
}

// expandTabs replaces tabs with spaces up to the next multiple of four
// columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			continue
		}
		b.WriteRune(r)
		col++ // close enough for indentation, which is where tabs are
	}
	return b.String()
}
