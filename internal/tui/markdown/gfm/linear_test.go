package gfm

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark/text"
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
}

// TestLinearTime parses each shape at n and 4n bytes: a linear parse
// takes about 4 times as long, a quadratic one 16. The bound (10) and
// the best of three runs leave room for a loaded machine and -race.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	p := NewParser()
	best := func(src []byte) time.Duration {
		var d time.Duration
		for i := 0; i < 3; i++ {
			runtime.GC()
			start := time.Now()
			p.Parse(text.NewReader(src))
			if e := time.Since(start); i == 0 || e < d {
				d = e
			}
		}
		return d
	}
	const n = 50 << 10
	for _, sh := range linearShapes {
		t.Run(sh.name, func(t *testing.T) {
			small, large := best([]byte(sh.build(n))), best([]byte(sh.build(4*n)))
			// Below a millisecond the ratio is noise.
			ratio := float64(large) / float64(max(small, time.Millisecond/4))
			t.Logf("%v at %d KB, %v at %d KB: ×%.1f", small, n>>10, large, 4*n>>10, ratio)
			if ratio > 10 || large > 5*time.Second {
				t.Errorf("%v at %d KB, %v at %d KB: ×%.1f, not linear", small, n>>10, large, 4*n>>10, ratio)
			}
		})
	}
}
