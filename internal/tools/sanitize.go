package tools

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes tool output safe and readable for a model: it removes ANSI
// and other terminal escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte escapes) and control characters except newline and tab, applies
// backspaces, resolves carriage returns the way a terminal shows them (CRLF
// is a newline; a line rewritten with lone CRs keeps its last non-empty
// segment, so progress bars collapse to their final state), and replaces
// invalid UTF-8 with U+FFFD. It is idempotent, and returns s itself when
// there is nothing to change.
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	var out strings.Builder
	out.Grow(len(s))
	var l lineBuffer
	pendingCR := false // a CR seen; lone unless a newline follows
	lastInvalid := false
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\n':
			pendingCR = false
			out.Write(l.finish())
			out.WriteByte('\n')
			i++
			continue
		case '\r':
			pendingCR = true
			i++
			continue
		}
		if pendingCR {
			pendingCR = false
			l.carriageReturn()
		}
		invalid := false
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
		case c == '\t':
			l.cur = append(l.cur, c)
			i++
		case c == '\b':
			l.backspace()
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			l.cur = append(l.cur, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size <= 1:
				// One replacement character per run of invalid bytes.
				if !lastInvalid {
					l.cur = utf8.AppendRune(l.cur, utf8.RuneError)
				}
				invalid = true
			case r >= 0x80 && r <= 0x9f:
				// C1 control characters (8-bit CSI and friends): dropped.
			default:
				l.cur = append(l.cur, s[i:i+size]...)
			}
			i += size
		}
		lastInvalid = invalid
	}
	out.Write(l.finish())
	return out.String()
}

// lineBuffer holds the line being sanitised as terminal rewrites leave it:
// cur is the segment since the last lone carriage return, prev the last
// non-empty segment before it.
type lineBuffer struct {
	prev, cur []byte
}

// carriageReturn starts a new segment; the current one, if not empty,
// becomes the one shown should nothing follow.
func (l *lineBuffer) carriageReturn() {
	if len(l.cur) > 0 {
		l.prev, l.cur = l.cur, l.prev[:0]
	}
}

func (l *lineBuffer) backspace() {
	if len(l.cur) > 0 {
		_, size := utf8.DecodeLastRune(l.cur)
		l.cur = l.cur[:len(l.cur)-size]
	}
}

// finish returns the line to show and resets the buffer. The returned slice
// is valid until the next write.
func (l *lineBuffer) finish() []byte {
	line := l.cur
	if len(line) == 0 {
		line = l.prev
	}
	l.prev, l.cur = l.prev[:0], l.cur[:0]
	return line
}

// skipEscape returns the index after the escape sequence starting at s[i]
// (an ESC byte). An unterminated sequence runs to the end of s.
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters and intermediates, then a final byte.
		i++
		for i < len(s) {
			c := s[i]
			i++
			if c >= 0x40 && c <= 0x7e {
				return i
			}
			if c < 0x20 || c > 0x7e {
				// Malformed: end before a control or non-ASCII byte.
				return i - 1
			}
		}
		return i
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to ST or BEL.
		i++
		for i < len(s) {
			switch s[i] {
			case 0x07:
				return i + 1
			case 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i // a new escape ends the string
			}
			i++
		}
		return i
	}
	// Other escapes: intermediates 0x20–0x2f, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// isClean reports whether s is valid UTF-8 without escapes, control
// characters other than newline and tab, and C1 controls.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			return false
		}
	}
	return utf8.ValidString(s)
}
