package gfm

// Bare URLs become links (GFM's extended autolinks, without e-mail
// addresses): "http://", "https://", "ftp://" or "www." at the start of a
// line, after a blank or after '*', '_', '~' or '(' (not escaped), then a
// domain and a path up to the first blank or '<'. Not inside a link's
// text. Trailing punctuation (?!.,:*_~) is not part of the link, nor a
// ')' without its '(' in the link, nor an entity reference ("&amp;") at
// the end. A "www." link's URL gets "http://". The scan is one pass to
// the end of the link and one back over what it trims, and a text that is
// not a link is refused after at most its first eight bytes, so no byte
// is scanned twice over.

// bareURL returns the length of the bare URL at the start of b (0 when
// there is none) and whether it is a "www." one, without a scheme.
func bareURL(b string) (n int, www bool) {
	i := 0
	switch {
	case hasPrefix(b, "https://"):
		i = 8
	case hasPrefix(b, "http://"):
		i = 7
	case hasPrefix(b, "ftp://"):
		i = 6
	case hasPrefix(b, "www."):
		i, www = 4, true
	default:
		return 0, false
	}
	// The domain starts with a letter, digit or non-ASCII byte and goes on
	// with those, '-', '_' and '.'.
	if i >= len(b) || !isDomainStart(b[i]) {
		return 0, false
	}
	least := i + 1
	for i < len(b) && (isDomainStart(b[i]) || b[i] == '-' || b[i] == '_' || b[i] == '.') {
		i++
	}
	// The path: anything up to a blank or '<'.
	open, shut := 0, 0
	for i < len(b) && b[i] != '<' && !isSpace(b[i]) {
		switch b[i] {
		case '(':
			open++
		case ')':
			shut++
		}
		i++
	}
	return trimURL(b, least, i, open, shut), www
}

// trimURL drops from the end of b[:end] (not below least) the punctuation
// that ends a sentence rather than a URL; open and shut count the
// parentheses in b[:end].
func trimURL(b string, least, end, open, shut int) int {
	for end > least {
		switch c := b[end-1]; c {
		case '?', '!', '.', ',', ':', '*', '_', '~':
			end--
		case ')':
			if shut <= open {
				return end
			}
			shut--
			end--
		case ';':
			// "&name;" at the end is an entity reference, not the URL's.
			k := end - 2
			for k >= least && isAlnum(b[k]) {
				k--
			}
			if k < least || k == end-2 || b[k] != '&' {
				return end
			}
			end = k
		default:
			return end
		}
	}
	return end
}

func hasPrefix(b, p string) bool { return len(b) >= len(p) && b[:len(p)] == p }

// isSpace reports whether c is ASCII white space.
func isSpace(c byte) bool { return isBlank(c) || c == '\f' || c == '\v' }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isDomainStart(c byte) bool { return isAlnum(c) || c >= 0x80 }
