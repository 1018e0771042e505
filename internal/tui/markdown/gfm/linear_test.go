package gfm

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// linearShapes are inputs on which a scan that starts over at every
// trigger, or a match that walks back over everything before it, is
// quadratic. Each builds an input of about n bytes.
var linearShapes = []struct {
	name  string
	build func(n int) string
}{
	{"underscores (the e-mail scan was quadratic)", func(n int) string { return strings.Repeat("a_", n/2) }},
	{"one URL of http://a repeated", func(n int) string { return strings.Repeat("http://a", n/8) }},
	{"URLs of http://a", func(n int) string { return strings.Repeat("http://a ", n/9) }},
	{"www. links with underscores", func(n int) string { return strings.Repeat("www.a_", n/6) }},
	{"refused URL starts", func(n int) string { return strings.Repeat("(www._http://(", n/14) }},
	{"trailing parentheses", func(n int) string { return "https://x.io/" + strings.Repeat(")", n) }},
	{"trailing entities", func(n int) string { return "https://x.io/" + strings.Repeat("&a;", n/3) }},
	{"one run of tildes", func(n int) string { return "a " + strings.Repeat("~", n) + " a" }},
	{"runs of four tildes", func(n int) string { return "a" + strings.Repeat(" ~~~~", n/5) }},
	{"closing tildes with nothing to close", func(n int) string {
		return strings.Repeat(" ~~a", n/8) + strings.Repeat(" a~", n/8)
	}},
	{"a wide table", func(n int) string {
		cols := n / 6
		return strings.Repeat("|a", cols) + "|\n" + strings.Repeat("|-", cols) + "|\n" + strings.Repeat("|b", cols) + "|\n"
	}},
	{"a long table", func(n int) string { return "|a|b|\n|-|-|\n" + strings.Repeat("|x|y|\n", n/6) }},
	{"delimiter rows of alternating widths", func(n int) string {
		return strings.Repeat("|-|-|\n|-|-|-|\n", n/14)
	}},
	// CommonMark's own shapes.
	{"emphasis closers that match no opener (goldmark: 6.8 s at 240 KB)", func(n int) string {
		return strings.Repeat(" *a", n/6) + strings.Repeat(" a_", n/6)
	}},
	{"nested brackets", func(n int) string { return strings.Repeat("[", n) }},
	{"nested brackets closed", func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("]", n/2) }},
	{"nested images closed", func(n int) string { return strings.Repeat("![", n/4) + "a" + strings.Repeat("](b)", n/8) }},
	{"links under brackets", func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("[a](b)", n/12) }},
	{"unclosed link destinations", func(n int) string { return strings.Repeat("[a](", n/4) }},
	{"unclosed link titles", func(n int) string { return strings.Repeat("[a](b (", n/7) }},
	{"unclosed quoted titles", func(n int) string { return strings.Repeat("[a](b \"", n/7) }},
	{"reference labels", func(n int) string { return strings.Repeat("[a][", n/4) }},
	{"undefined shortcut references", func(n int) string { return strings.Repeat("[a] ", n/4) }},
	{"unclosed raw HTML", func(n int) string { return strings.Repeat("a <? ", n/5) }},
	{"unclosed HTML comments", func(n int) string { return strings.Repeat("a <!-- ", n/7) }},
	{"unclosed declarations and CDATA", func(n int) string { return strings.Repeat("<!A <![CDATA[ ", n/14) }},
	{"unclosed attribute values", func(n int) string { return strings.Repeat("<a b='", n/6) }},
	{"backtick runs of growing length", func(n int) string {
		var b strings.Builder
		for k := 1; b.Len() < n; k++ {
			b.WriteString(strings.Repeat("`", k%200+1) + " a ")
		}
		return b.String()
	}},
	{"unmatched emphasis of every kind", func(n int) string { return strings.Repeat("*a **a _a __a ~a ~~a ", n/21) }},
	{"rule of three", func(n int) string { return strings.Repeat("a**b*", n/5) }},
	{"entities", func(n int) string { return strings.Repeat("&amp;&#1234;&bogus;&", n/20) }},
	{"block quotes and lists", func(n int) string { return strings.Repeat("> - a\n>   b\n", n/13) }},
	{"lazy lines", func(n int) string { return "> a\n" + strings.Repeat("b\n", n/2) }},
	{"link reference definitions", func(n int) string { return strings.Repeat("[a]: /u 't'\n", n/12) }},
	{"list items", func(n int) string { return strings.Repeat("- a\n\n  b\n", n/10) }},
}

// TestLinearTime parses each shape at n and 4n bytes: a linear parse
// takes about 4 times as long, a quadratic one 16. The bound (10) and
// the best of five runs leave room for a loaded machine and -race; the
// collector is off while a parse is timed (its cost on a growing heap is
// not the parser's complexity).
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	best := func(src string) time.Duration {
		var d time.Duration
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		for i := 0; i < 5; i++ {
			runtime.GC()
			start := time.Now()
			Parse(src)
			if e := time.Since(start); i == 0 || e < d {
				d = e
			}
		}
		return d
	}
	const n = 50 << 10
	for _, sh := range linearShapes {
		t.Run(sh.name, func(t *testing.T) {
			// A loaded machine can slow one side of a pair: a pair over
			// the bound is measured again (up to three times) and the
			// best ratio counts. A quadratic parse is over it every time.
			var small, large time.Duration
			ratio := 0.0
			for try := 0; try < 3 && (try == 0 || ratio > 10); try++ {
				s, l := best(sh.build(n)), best(sh.build(4*n))
				// Below a millisecond the ratio is noise.
				if r := float64(l) / float64(max(s, time.Millisecond/4)); try == 0 || r < ratio {
					small, large, ratio = s, l, r
				}
			}
			t.Logf("%v at %d KB, %v at %d KB: ×%.1f", small, n>>10, large, 4*n>>10, ratio)
			if ratio > 10 || large > 5*time.Second {
				t.Errorf("%v at %d KB, %v at %d KB: ×%.1f, not linear", small, n>>10, large, 4*n>>10, ratio)
			}
		})
	}
}
