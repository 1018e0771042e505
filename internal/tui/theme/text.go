package theme

// The width-aware text helpers of the chat's panels: widths are terminal
// cells, styled text keeps its escape sequences whole.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit cuts a styled line to width cells.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// Pad fills a styled line with spaces up to width cells (cutting it if
// longer).
func Pad(s string, width int) string {
	w := ansi.StringWidth(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	return s + strings.Repeat(" ", width-w)
}

// Wrap wraps plain text (no escape sequences) to width, keeping blank
// lines and expanding tabs.
func Wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if isASCII(line) {
			out = wrapASCII(out, line, width)
			continue
		}
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, width, ""), "\n")...)
	}
	return out
}

// OneLine flattens text to its first line, cut to width cells.
func OneLine(s string, width int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	s = strings.ReplaceAll(s, "\t", " ")
	return Fit(s, width)
}

// isASCII reports whether s is printable ASCII, whose width is its length.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// wrapASCII wraps a line of printable ASCII at spaces (words longer than
// width are cut), appending the rows to out: the fast path of Wrap.
func wrapASCII(out []string, line string, width int) []string {
	for len(line) > width {
		cut := strings.LastIndexByte(line[:width+1], ' ')
		if cut <= 0 {
			out = append(out, line[:width])
			line = line[width:]
			continue
		}
		out = append(out, strings.TrimRight(line[:cut], " "))
		line = strings.TrimLeft(line[cut+1:], " ")
	}
	return append(out, line)
}

// Commas writes n with thousands separators.
func Commas(n int64) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
