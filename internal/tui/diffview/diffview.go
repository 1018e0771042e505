// Package diffview renders a unified diff for the terminal: line numbers
// in a gutter, the changed words of a modified line emphasised, long
// lines wrapped (never cut), and side by side when the width allows it.
// One renderer serves the permission dialog (the diff before consent),
// the tool cards and /diff.
//
// Render is pure: it takes the diff text, a width in cells and the
// styles, and returns rows that are each at most width cells wide. It
// strips terminal control sequences from the diff's text itself, so a
// file's content cannot drive the terminal.
package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/termsafe"
)

// SideBySideWidth is the narrowest width drawn side by side by Auto.
const SideBySideWidth = 160

// maxPairTokens bounds the word-level comparison of a pair of lines (the
// product of their token counts); larger pairs compare by common prefix
// and suffix only.
const maxPairTokens = 40_000

// Styles are the looks of a diff.
type Styles struct {
	Context lipgloss.Style // unchanged lines
	Add     lipgloss.Style // added lines
	Del     lipgloss.Style // removed lines
	AddWord lipgloss.Style // the changed words of an added line
	DelWord lipgloss.Style // the changed words of a removed line
	Hunk    lipgloss.Style // hunk headers
	Gutter  lipgloss.Style // line numbers
}

// Layout chooses between one column and two.
type Layout int

// The layouts: Auto is side by side from SideBySideWidth.
const (
	Auto Layout = iota
	Unified
	SideBySide
)

// Kind is what a diff line is.
type Kind int

// The kinds of diff lines.
const (
	Context Kind = iota
	Added
	Removed
	HunkHeader
)

// Line is one line of a parsed diff.
type Line struct {
	Kind     Kind
	Old, New int // line numbers (0 when the side has no line)
	Text     string
	// Words marks the changed spans of Text (byte ranges), for a removed
	// or added line paired with its counterpart.
	Words [][2]int
}

// Parse reads a unified diff: file headers are dropped, numbers come
// from the hunk headers, and the changed words of paired removed and
// added lines are marked. Inside a hunk, the lines its header counts
// are content, whatever they look like ("--- x" is the removed line
// "-- x"); a hunk header starts a hunk wherever it is (a hand-written
// patch may count wrong).
func Parse(diff string) []Line {
	var out []Line
	oldN, newN := 0, 0
	oldLeft, newLeft := 0, 0 // the lines of the hunk still to come
	diff = strings.TrimRight(diff, "\n")
	if diff == "" {
		return nil
	}
	for _, l := range strings.Split(diff, "\n") {
		inHunk := oldLeft > 0 || newLeft > 0
		switch {
		case !inHunk && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")):
		case strings.HasPrefix(l, "@@"): // no content line starts with '@': a header even where a count ran over
			oldN, newN, oldLeft, newLeft = hunkStart(l)
			out = append(out, Line{Kind: HunkHeader, Text: clean(l)})
		case strings.HasPrefix(l, "+"):
			out = append(out, Line{Kind: Added, New: newN, Text: clean(l[1:])})
			newN++
			newLeft--
		case strings.HasPrefix(l, "-"):
			out = append(out, Line{Kind: Removed, Old: oldN, Text: clean(l[1:])})
			oldN++
			oldLeft--
		case strings.HasPrefix(l, `\`): // "\ No newline at end of file"
		default:
			out = append(out, Line{Kind: Context, Old: oldN, New: newN, Text: clean(strings.TrimPrefix(l, " "))})
			oldN++
			newN++
			oldLeft--
			newLeft--
		}
	}
	markWords(out)
	return out
}

// clean makes a line of a file safe and flat for the terminal.
func clean(s string) string {
	s = strings.TrimSuffix(s, "\r")
	return strings.ReplaceAll(termsafe.Strip(s), "\t", "    ")
}

// hunkStart reads the first old and new line numbers of "@@ -a,b +c,d @@"
// and the counts b and d (1 when left out; 0 for a header it cannot
// read, whose lines are then read by their look alone).
func hunkStart(h string) (oldN, newN, oldCount, newCount int) {
	f := strings.Fields(h)
	num := func(s, sign string) (start, count int) {
		s = strings.TrimPrefix(s, sign)
		s, c, hasCount := strings.Cut(s, ",")
		start, _ = strconv.Atoi(s)
		count = 1
		if hasCount {
			count, _ = strconv.Atoi(c)
		}
		return max(start, 1), max(count, 0)
	}
	if len(f) >= 3 && strings.HasPrefix(f[1], "-") && strings.HasPrefix(f[2], "+") {
		oldN, oldCount = num(f[1], "-")
		newN, newCount = num(f[2], "+")
		return oldN, newN, oldCount, newCount
	}
	return 1, 1, 0, 0
}

// markWords pairs each run of removed lines with the run of added lines
// after it, line by line, and marks the words that differ.
func markWords(ls []Line) {
	for i := 0; i < len(ls); {
		if ls[i].Kind != Removed {
			i++
			continue
		}
		d0 := i
		for i < len(ls) && ls[i].Kind == Removed {
			i++
		}
		a0 := i
		for i < len(ls) && ls[i].Kind == Added {
			i++
		}
		for k := 0; k < a0-d0 && a0+k < i; k++ {
			ls[d0+k].Words, ls[a0+k].Words = wordDiff(ls[d0+k].Text, ls[a0+k].Text)
		}
	}
}

// tokens splits s into words, runs of spaces and single punctuation
// marks, as byte ranges.
func tokens(s string) [][2]int {
	var out [][2]int
	class := func(r rune) int {
		switch {
		case r == ' ':
			return 0
		case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
			return 1
		}
		return 2
	}
	start, prev := 0, -1
	for i, r := range s {
		c := class(r)
		if i > start && (c != prev || c == 2) {
			out = append(out, [2]int{start, i})
			start = i
		}
		prev = c
	}
	if start < len(s) {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// wordDiff returns the spans of a and b that are not in their longest
// common subsequence of tokens; for very long lines, what lies between
// their common prefix and suffix.
func wordDiff(a, b string) (da, db [][2]int) {
	ta, tb := tokens(a), tokens(b)
	tok := func(s string, t [2]int) string { return s[t[0]:t[1]] }
	if len(ta)*len(tb) > maxPairTokens {
		p := 0
		for p < len(a) && p < len(b) && a[p] == b[p] {
			p++
		}
		s := 0
		for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
			s++
		}
		if p < len(a)-s {
			da = [][2]int{{p, len(a) - s}}
		}
		if p < len(b)-s {
			db = [][2]int{{p, len(b) - s}}
		}
		return da, db
	}
	// lcs[i][j]: the longest common subsequence of ta[i:] and tb[j:].
	lcs := make([][]int, len(ta)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(tb)+1)
	}
	for i := len(ta) - 1; i >= 0; i-- {
		for j := len(tb) - 1; j >= 0; j-- {
			if tok(a, ta[i]) == tok(b, tb[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	add := func(spans [][2]int, t [2]int) [][2]int {
		if n := len(spans); n > 0 && spans[n-1][1] == t[0] {
			spans[n-1][1] = t[1]
			return spans
		}
		return append(spans, t)
	}
	i, j := 0, 0
	for i < len(ta) || j < len(tb) {
		switch {
		case i < len(ta) && j < len(tb) && tok(a, ta[i]) == tok(b, tb[j]):
			i++
			j++
		case j >= len(tb) || i < len(ta) && lcs[i+1][j] >= lcs[i][j+1]:
			da = add(da, ta[i])
			i++
		default:
			db = add(db, tb[j])
			j++
		}
	}
	// A line that changed entirely is plain removed or added: no words
	// to point at.
	if len(da) == 1 && da[0] == [2]int{0, len(a)} && len(db) == 1 && db[0] == [2]int{0, len(b)} {
		return nil, nil
	}
	return da, db
}

// Render draws diff in width cells.
func Render(diff string, width int, layout Layout, st Styles) []string {
	return RenderLines(Parse(diff), width, layout, st)
}

// RenderLines draws parsed lines in width cells.
func RenderLines(ls []Line, width int, layout Layout, st Styles) []string {
	if len(ls) == 0 || width < 8 {
		return nil
	}
	if layout == Auto {
		layout = Unified
		if width >= SideBySideWidth {
			layout = SideBySide
		}
	}
	digits := 1
	for _, l := range ls {
		digits = max(digits, len(strconv.Itoa(max(l.Old, l.New))))
	}
	// Two columns need room for a gutter, a sign and four cells each;
	// narrower, one column is drawn.
	if layout == SideBySide && (width-1)/2 >= digits+3+4 {
		return sideBySide(ls, width, digits, st)
	}
	return unified(ls, width, digits, st)
}

func unified(ls []Line, width, digits int, st Styles) []string {
	var out []string
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", digits)
		}
		return fmt.Sprintf("%*d", digits, n)
	}
	gutterW := 2*digits + 2
	if width < gutterW+2+4 {
		// Too narrow for the numbers: the text keeps the room.
		num = func(int) string { return "" }
		gutterW = 0
	}
	textW := width - gutterW - 2
	blank := st.Gutter.Render(strings.Repeat(" ", gutterW))
	for _, l := range ls {
		if l.Kind == HunkHeader {
			out = append(out, st.Hunk.Render(ansi.Truncate(l.Text, width, "…")))
			continue
		}
		sign, style, word := " ", st.Context, st.Context
		switch l.Kind {
		case Added:
			sign, style, word = "+", st.Add, st.AddWord
		case Removed:
			sign, style, word = "-", st.Del, st.DelWord
		}
		gutter := ""
		if gutterW > 0 {
			gutter = st.Gutter.Render(num(l.Old) + " " + num(l.New) + " ")
		}
		for i, row := range wrapStyled(l.Text, l.Words, textW, style, word) {
			g, s := gutter, style.Render(sign+" ")
			if i > 0 {
				g, s = blank, style.Render("  ")
			}
			out = append(out, g+s+row)
		}
	}
	return out
}

func sideBySide(ls []Line, width, digits int, st Styles) []string {
	half := (width - 1) / 2
	textW := max(4, half-digits-3)
	side := func(l *Line, n int) []string {
		if l == nil {
			return nil
		}
		style, word, sign := st.Context, st.Context, " "
		switch l.Kind {
		case Added:
			style, word, sign = st.Add, st.AddWord, "+"
		case Removed:
			style, word, sign = st.Del, st.DelWord, "-"
		}
		rows := wrapStyled(l.Text, l.Words, textW, style, word)
		for i := range rows {
			g := st.Gutter.Render(fmt.Sprintf("%*d ", digits, n)) + style.Render(sign+" ")
			if i > 0 {
				g = st.Gutter.Render(strings.Repeat(" ", digits+1)) + style.Render("  ")
			}
			rows[i] = g + rows[i]
		}
		return rows
	}
	padTo := func(s string, w int) string {
		if sw := ansi.StringWidth(s); sw < w {
			return s + strings.Repeat(" ", w-sw)
		}
		return s
	}
	sep := st.Gutter.Render("│")
	var out []string
	emit := func(left, right []string) {
		for i := 0; i < max(len(left), len(right)); i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			out = append(out, padTo(l, half)+sep+r)
		}
	}
	for i := 0; i < len(ls); {
		l := &ls[i]
		switch l.Kind {
		case HunkHeader:
			out = append(out, st.Hunk.Render(ansi.Truncate(l.Text, width, "…")))
			i++
		case Context:
			emit(side(l, l.Old), side(l, l.New))
			i++
		default:
			// A run of removals beside the run of additions after it.
			var dels, adds []*Line
			for i < len(ls) && ls[i].Kind == Removed {
				dels = append(dels, &ls[i])
				i++
			}
			for i < len(ls) && ls[i].Kind == Added {
				adds = append(adds, &ls[i])
				i++
			}
			for k := 0; k < max(len(dels), len(adds)); k++ {
				var left, right []string
				if k < len(dels) {
					left = side(dels[k], dels[k].Old)
				}
				if k < len(adds) {
					right = side(adds[k], adds[k].New)
				}
				emit(left, right)
			}
		}
	}
	return out
}

// wrapStyled wraps text to width cells, styling the marked spans with
// word and the rest with style.
func wrapStyled(text string, words [][2]int, width int, style, word lipgloss.Style) []string {
	if text == "" {
		return []string{""}
	}
	marked := func(i int) bool {
		for _, w := range words {
			if i >= w[0] && i < w[1] {
				return true
			}
		}
		return false
	}
	var rows []string
	var row, run strings.Builder
	runMarked, cells := false, 0
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if runMarked {
			row.WriteString(word.Render(run.String()))
		} else {
			row.WriteString(style.Render(run.String()))
		}
		run.Reset()
	}
	for i, r := range text {
		w := ansi.StringWidth(string(r))
		if cells+w > width && cells > 0 {
			flush()
			rows = append(rows, row.String())
			row.Reset()
			cells = 0
		}
		if m := marked(i); m != runMarked {
			flush()
			runMarked = m
		}
		run.WriteRune(r)
		cells += w
	}
	flush()
	return append(rows, row.String())
}
