package gfm

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Links' pieces — labels, destinations, titles — and what they share
// with text: backslash escapes and entity references. Each scan stops at
// the first byte that ends what it scans, so a failed scan is never
// longer than the text up to that byte; a destination's parentheses nest
// at most maxParens deep (as cmark has it), so "[a](" repeated costs a
// bounded scan each.

const (
	// maxLabel is the longest link label, in bytes between the brackets.
	maxLabel = 999
	// maxParens bounds the parentheses nesting of a link destination.
	maxParens = 32
)

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// entity decodes the entity or numeric character reference at the start
// of s ("&amp;", "&#65;", "&#x41;"), returning its text and length, or
// n == 0 when there is none.
func entity(s string) (text string, n int) {
	if len(s) < 3 || s[0] != '&' {
		return "", 0
	}
	if s[1] == '#' {
		i, base, most := 2, 10, 7
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			i, base, most = 3, 16, 6
		}
		v, k := 0, i
		for ; k < len(s) && k-i < most; k++ {
			d := digit(s[k], base)
			if d < 0 {
				break
			}
			v = v*base + d
		}
		if k == i || k >= len(s) || s[k] != ';' {
			return "", 0
		}
		if v == 0 || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
			return "\uFFFD", k + 1
		}
		return string(rune(v)), k + 1
	}
	k := 1
	for k < len(s) && k <= 32 && isAlnum(s[k]) {
		k++
	}
	if k == 1 || k >= len(s) || s[k] != ';' {
		return "", 0
	}
	name := s[1:k]
	i := sort.Search(len(entities), func(i int) bool { return entities[i].name >= name })
	if i < len(entities) && entities[i].name == name {
		return entities[i].text, k + 1
	}
	return "", 0
}

func digit(c byte, base int) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case base == 16 && c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case base == 16 && c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unescape resolves the backslash escapes and entity references of s.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i++
		case c == '&':
			if t, n := entity(s[i:]); n > 0 {
				b.WriteString(t)
				i += n - 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normalizeLabel is a link label's key: case folded (fully: casefold.go),
// inner white space collapsed to one space, trimmed ("" for no label).
func normalizeLabel(label string) string {
	return caseFold(strings.Join(strings.Fields(label), " "))
}

// linkLabel returns the length of the link label ("[…]") at the start of
// s, or 0: at most maxLabel bytes, no unescaped bracket inside. ("[]" is
// one: a collapsed reference's; a blank label defines nothing.)
func linkLabel(s string) int {
	if len(s) == 0 || s[0] != '[' {
		return 0
	}
	for i := 1; i < len(s) && i <= maxLabel+1; i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '[' || s[i+1] == ']' || s[i+1] == '\\') {
				i++
			}
		case '[':
			return 0
		case ']':
			return i + 1
		}
	}
	return 0
}

// linkDest parses the link destination at the start of s: "<…>" or text
// without spaces or control characters whose parentheses balance. It
// returns the destination (escapes and references resolved), its length,
// and ok. An empty destination is allowed only in angle brackets, or
// when s starts with ')' (an inline link with none).
func linkDest(s string) (dest string, n int, ok bool) {
	if len(s) > 0 && s[0] == '<' {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) && isASCIIPunct(s[i+1]) {
					i++
				}
			case '\n', '<':
				return "", 0, false
			case '>':
				return unescape(s[1:i]), i + 1, true
			}
		}
		return "", 0, false
	}
	depth := 0
	i := 0
scan:
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
		case c == '(':
			depth++
			if depth > maxParens {
				return "", 0, false
			}
		case c == ')':
			if depth == 0 {
				break scan
			}
			depth--
		case c <= ' ' || c == 0x7f:
			break scan
		}
	}
	if depth != 0 || i == 0 && (i >= len(s) || s[i] != ')') {
		return "", 0, false
	}
	return unescape(s[:i]), i, true
}

// linkTitle parses the link title at the start of s: "…", '…' or (…).
func linkTitle(s string) (title string, n int, ok bool) {
	if len(s) == 0 {
		return "", 0, false
	}
	end := s[0]
	switch end {
	case '"', '\'':
	case '(':
		end = ')'
	default:
		return "", 0, false
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				i++
			}
		case end:
			return unescape(s[1:i]), i + 1, true
		case '(':
			if end == ')' {
				return "", 0, false
			}
		case '\n':
			if i+1 < len(s) && blankLineAt(s[i+1:]) {
				return "", 0, false
			}
		}
	}
	return "", 0, false
}

// blankLineAt reports whether s starts with a line of spaces and tabs.
func blankLineAt(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// spnl skips spaces and tabs with at most one line ending among them,
// returning the new position.
func spnl(s string, i int) int {
	nl := false
	for i < len(s) {
		switch s[i] {
		case ' ', '\t':
		case '\n':
			if nl {
				return i
			}
			nl = true
		default:
			return i
		}
		i++
	}
	return i
}

// takeRefs takes the link reference definitions at the start of a
// paragraph's lines, returning the lines left.
func (p *parser) takeRefs(lines []string) []string {
	if len(lines) == 0 || len(lines[0]) == 0 || lines[0][0] != '[' {
		return lines
	}
	s := strings.Join(lines, "\n")
	pos := 0
	for pos < len(s) && s[pos] == '[' {
		n := p.refDef(s[pos:])
		if n == 0 {
			break
		}
		pos += n
	}
	if pos == 0 {
		return lines
	}
	return lines[strings.Count(s[:pos], "\n")+boolInt(pos == len(s) && s[len(s)-1] != '\n'):]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// refDef parses a link reference definition at the start of s and
// records it (the first definition of a label wins). It returns the
// length taken, through the line ending, or 0.
func (p *parser) refDef(s string) int {
	n := linkLabel(s)
	if n == 0 || n >= len(s) || s[n] != ':' {
		return 0
	}
	label := normalizeLabel(s[1 : n-1])
	if label == "" {
		return 0
	}
	i := spnl(s, n+1)
	dest, dn, ok := linkDest(s[i:])
	if !ok || dn == 0 {
		return 0
	}
	i += dn
	beforeTitle := i
	i = spnl(s, i)
	title := ""
	if i != beforeTitle {
		if t, tn, ok := linkTitle(s[i:]); ok {
			title = t
			i += tn
		} else {
			i = beforeTitle
		}
	} else {
		i = beforeTitle
	}
	end, atEnd := lineEnd(s, i)
	if !atEnd {
		if i == beforeTitle {
			return 0
		}
		// The title is not followed by the line's end: the definition
		// ends after its destination, if that ends a line.
		title = ""
		if end, atEnd = lineEnd(s, beforeTitle); !atEnd {
			return 0
		}
	}
	if p.refs == nil {
		p.refs = make(map[string]ref)
	}
	if _, dup := p.refs[label]; !dup {
		p.refs[label] = ref{dest: dest, title: title}
	}
	return end
}

// lineEnd skips spaces and tabs from i: atEnd when the line ends there,
// and end is then past the line ending.
func lineEnd(s string, i int) (end int, atEnd bool) {
	for i < len(s) && isSpaceOrTab(s[i]) {
		i++
	}
	switch {
	case i == len(s):
		return i, true
	case s[i] == '\n':
		return i + 1, true
	}
	return i, false
}
