package tools

import (
	"bytes"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Grep's prefilter for a pattern without a required literal of 3 bytes
// (requiredLiteral): a set of bytes one of which every match must contain
// (requiredBytes), such as the digits of `\d{4}-\d{2}` or its '-'. The
// buffer is scanned for the set (bytes.IndexByte for one byte), and only
// the lines that hold one are run through the regular expression, instead
// of the regular expression reading every byte. The set is a superset:
// bytes of other runes that fold to a pattern's letter and every non-ASCII
// byte when a non-ASCII rune or an invalid byte (U+FFFD) could match, so
// no line that matches is skipped (FuzzGrepPrefilter holds it to a plain
// scan of every line).

// byteSet is a set of bytes; one holds the byte when the set has exactly
// one (searched with bytes.IndexByte).
type byteSet struct {
	has [256]bool
	n   int
	one byte
}

func (b *byteSet) add(c byte) {
	if !b.has[c] {
		b.has[c] = true
		b.n++
		b.one = c
	}
}

// addRune adds the first byte of r's UTF-8 form; for r beyond ASCII, every
// byte from 0x80 (an invalid byte decodes as U+FFFD, which r may be).
func (b *byteSet) addRune(r rune) {
	if r < utf8.RuneSelf {
		b.add(byte(r))
		return
	}
	for c := 0x80; c < 256; c++ {
		b.add(byte(c))
	}
}

// index returns the index of the first byte of hay in the set, or -1.
func (b *byteSet) index(hay []byte) int {
	if b.n == 1 {
		return bytes.IndexByte(hay, b.one)
	}
	for i, c := range hay {
		if b.has[c] {
			return i
		}
	}
	return -1
}

// cost is how often the set's bytes are expected in source text: the
// lower, the fewer lines it lets through.
func (b *byteSet) cost() int {
	total := 0
	for c, in := range b.has {
		if !in {
			continue
		}
		switch {
		case c == ' ':
			total += 150
		case c == '\t' || c >= 'a' && c <= 'z':
			total += 25
		case c == '(' || c == ')' || c == '.' || c == ',' || c == '_' || c == '=' || c == '"' || c == ';' || c == ':' || c == '/' || c == '*' || c == '{' || c == '}':
			total += 8
		case c >= 'A' && c <= 'Z':
			total += 5
		case c >= '0' && c <= '9':
			total += 4
		default:
			total += 2
		}
	}
	return total
}

// maxPrefilterCost is the most a set may cost and still be used: one
// with a space or most lower-case letters passes nearly every line.
const maxPrefilterCost = 140

// requiredBytes returns the cheapest set of bytes every match of pattern
// must contain one of, or nil when there is none worth scanning for.
func requiredBytes(pattern string) *byteSet {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	best := bestRequired(re.Simplify())
	if best == nil || best.cost() > maxPrefilterCost {
		return nil
	}
	return best
}

// bestRequired returns the cheapest byte set re's every match contains
// one of, or nil.
func bestRequired(re *syntax.Regexp) *byteSet {
	var best *byteSet
	consider := func(s *byteSet) {
		if s != nil && (best == nil || s.cost() < best.cost()) {
			best = s
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			s := &byteSet{}
			s.addRune(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					s.addRune(f)
				}
			}
			consider(s)
		}
	case syntax.OpCharClass:
		s := &byteSet{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				s.add(byte(r))
			}
			if hi >= utf8.RuneSelf {
				s.addRune(hi)
			}
		}
		consider(s)
	case syntax.OpCapture, syntax.OpPlus:
		consider(bestRequired(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			consider(bestRequired(re.Sub[0]))
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(bestRequired(sub))
		}
	}
	return best
}

// foldScan finds a case-insensitive literal (lower case, ASCII folding:
// requiredLiteral) in a buffer without lower-casing a copy of it: it looks
// for a window of the literal (one or two bytes, grepanchor.go picks it)
// in each of its case forms with bytes.Index and compares the literal
// around each one found.
type foldScan struct {
	hay  []byte
	lit  []byte
	win  foldWindow
	next [4]int // the next index of each form in hay at or after the last from; -2 unknown
}

// newFoldScan scans hay for lit (lower case) anchored on win.
func newFoldScan(hay, lit []byte, win foldWindow) foldScan {
	return foldScan{hay: hay, lit: lit, win: win, next: [4]int{-2, -2, -2, -2}}
}

// index returns the first index at or after from where the literal
// starts, ignoring ASCII case, or -1.
func (f *foldScan) index(from int) int {
	k := f.win.k
	for {
		if from+k >= len(f.hay) {
			return -1
		}
		at := -1
		for i := range f.win.n {
			if f.next[i] == -2 || f.next[i] >= 0 && f.next[i] < from+k {
				f.next[i] = -1
				if j := f.win.find(f.hay[from+k:], i); j >= 0 {
					f.next[i] = from + k + j
				}
			}
			if f.next[i] >= 0 && (at < 0 || f.next[i] < at) {
				at = f.next[i]
			}
		}
		if at < 0 {
			return -1
		}
		start := at - k
		if start+len(f.lit) <= len(f.hay) && asciiEqualFold(f.hay[start:start+len(f.lit)], f.lit) {
			return start
		}
		from = start + 1
	}
}

// asciiEqualFold reports whether b equals lower (lower case) ignoring
// ASCII case.
func asciiEqualFold(b, lower []byte) bool {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
