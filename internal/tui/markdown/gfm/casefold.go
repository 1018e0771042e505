package gfm

import (
	"sort"
	"strings"
	"unicode"
)

// Link labels match under Unicode case folding (CommonMark: "a Unicode
// case fold"), which is full folding: one letter may fold to several
// ("ß" and "ẞ" to "ss", "ﬁ" to "fi"). Go's unicode package folds one rune
// to one rune, so the letters whose full folding is longer are listed
// here: the "F" entries of Unicode 14.0.0's CaseFolding.txt, sorted by rune
// (generated with Python's str.casefold, which folds by that table).

// fullFolds are the letters whose case folding is more than one rune.
var fullFolds = [...]struct {
	r    rune
	fold string
}{
	{0x00DF, "ss"},
	{0x0130, "i\u0307"},
	{0x0149, "\u02BCn"},
	{0x01F0, "j\u030C"},
	{0x0390, "\u03B9\u0308\u0301"},
	{0x03B0, "\u03C5\u0308\u0301"},
	{0x0587, "\u0565\u0582"},
	{0x1E96, "h\u0331"},
	{0x1E97, "t\u0308"},
	{0x1E98, "w\u030A"},
	{0x1E99, "y\u030A"},
	{0x1E9A, "a\u02BE"},
	{0x1E9E, "ss"},
	{0x1F50, "\u03C5\u0313"},
	{0x1F52, "\u03C5\u0313\u0300"},
	{0x1F54, "\u03C5\u0313\u0301"},
	{0x1F56, "\u03C5\u0313\u0342"},
	{0x1F80, "\u1F00\u03B9"},
	{0x1F81, "\u1F01\u03B9"},
	{0x1F82, "\u1F02\u03B9"},
	{0x1F83, "\u1F03\u03B9"},
	{0x1F84, "\u1F04\u03B9"},
	{0x1F85, "\u1F05\u03B9"},
	{0x1F86, "\u1F06\u03B9"},
	{0x1F87, "\u1F07\u03B9"},
	{0x1F88, "\u1F00\u03B9"},
	{0x1F89, "\u1F01\u03B9"},
	{0x1F8A, "\u1F02\u03B9"},
	{0x1F8B, "\u1F03\u03B9"},
	{0x1F8C, "\u1F04\u03B9"},
	{0x1F8D, "\u1F05\u03B9"},
	{0x1F8E, "\u1F06\u03B9"},
	{0x1F8F, "\u1F07\u03B9"},
	{0x1F90, "\u1F20\u03B9"},
	{0x1F91, "\u1F21\u03B9"},
	{0x1F92, "\u1F22\u03B9"},
	{0x1F93, "\u1F23\u03B9"},
	{0x1F94, "\u1F24\u03B9"},
	{0x1F95, "\u1F25\u03B9"},
	{0x1F96, "\u1F26\u03B9"},
	{0x1F97, "\u1F27\u03B9"},
	{0x1F98, "\u1F20\u03B9"},
	{0x1F99, "\u1F21\u03B9"},
	{0x1F9A, "\u1F22\u03B9"},
	{0x1F9B, "\u1F23\u03B9"},
	{0x1F9C, "\u1F24\u03B9"},
	{0x1F9D, "\u1F25\u03B9"},
	{0x1F9E, "\u1F26\u03B9"},
	{0x1F9F, "\u1F27\u03B9"},
	{0x1FA0, "\u1F60\u03B9"},
	{0x1FA1, "\u1F61\u03B9"},
	{0x1FA2, "\u1F62\u03B9"},
	{0x1FA3, "\u1F63\u03B9"},
	{0x1FA4, "\u1F64\u03B9"},
	{0x1FA5, "\u1F65\u03B9"},
	{0x1FA6, "\u1F66\u03B9"},
	{0x1FA7, "\u1F67\u03B9"},
	{0x1FA8, "\u1F60\u03B9"},
	{0x1FA9, "\u1F61\u03B9"},
	{0x1FAA, "\u1F62\u03B9"},
	{0x1FAB, "\u1F63\u03B9"},
	{0x1FAC, "\u1F64\u03B9"},
	{0x1FAD, "\u1F65\u03B9"},
	{0x1FAE, "\u1F66\u03B9"},
	{0x1FAF, "\u1F67\u03B9"},
	{0x1FB2, "\u1F70\u03B9"},
	{0x1FB3, "\u03B1\u03B9"},
	{0x1FB4, "\u03AC\u03B9"},
	{0x1FB6, "\u03B1\u0342"},
	{0x1FB7, "\u03B1\u0342\u03B9"},
	{0x1FBC, "\u03B1\u03B9"},
	{0x1FC2, "\u1F74\u03B9"},
	{0x1FC3, "\u03B7\u03B9"},
	{0x1FC4, "\u03AE\u03B9"},
	{0x1FC6, "\u03B7\u0342"},
	{0x1FC7, "\u03B7\u0342\u03B9"},
	{0x1FCC, "\u03B7\u03B9"},
	{0x1FD2, "\u03B9\u0308\u0300"},
	{0x1FD3, "\u03B9\u0308\u0301"},
	{0x1FD6, "\u03B9\u0342"},
	{0x1FD7, "\u03B9\u0308\u0342"},
	{0x1FE2, "\u03C5\u0308\u0300"},
	{0x1FE3, "\u03C5\u0308\u0301"},
	{0x1FE4, "\u03C1\u0313"},
	{0x1FE6, "\u03C5\u0342"},
	{0x1FE7, "\u03C5\u0308\u0342"},
	{0x1FF2, "\u1F7C\u03B9"},
	{0x1FF3, "\u03C9\u03B9"},
	{0x1FF4, "\u03CE\u03B9"},
	{0x1FF6, "\u03C9\u0342"},
	{0x1FF7, "\u03C9\u0342\u03B9"},
	{0x1FFC, "\u03C9\u03B9"},
	{0xFB00, "ff"},
	{0xFB01, "fi"},
	{0xFB02, "fl"},
	{0xFB03, "ffi"},
	{0xFB04, "ffl"},
	{0xFB05, "st"},
	{0xFB06, "st"},
	{0xFB13, "\u0574\u0576"},
	{0xFB14, "\u0574\u0565"},
	{0xFB15, "\u0574\u056B"},
	{0xFB16, "\u057E\u0576"},
	{0xFB17, "\u0574\u056D"},
}

// caseFold folds s for matching: each rune by its full folding when it
// has one, else by its simple one.
func caseFold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= 0xDF {
			i := sort.Search(len(fullFolds), func(i int) bool { return fullFolds[i].r >= r })
			if i < len(fullFolds) && fullFolds[i].r == r {
				b.WriteString(fullFolds[i].fold)
				continue
			}
		}
		b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	}
	return b.String()
}
