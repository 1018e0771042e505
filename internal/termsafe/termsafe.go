// Package termsafe makes text from the model or from tools safe to put on a
// user's terminal: control characters that could start an escape sequence
// (ESC, CSI, OSC, DCS and the other C0 and C1 controls) are removed, so no
// colour, cursor movement, title change or clipboard write can come from
// text the agent did not produce itself. Tabs and newlines stay.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// Strip removes terminal control characters from s and replaces invalid
// UTF-8. A lone carriage return is dropped; "\r\n" becomes "\n".
func Strip(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// Control character: dropped.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clean reports whether s needs no change (the common case, kept fast).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return !strings.ContainsFunc(s[i:], func(r rune) bool {
				return r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0
			}) && utf8.ValidString(s[i:])
		}
	}
	return true
}
