package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestSplitBlocks(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		final bool
		want  []string
		rest  string // the unfinished tail
	}{
		{"paragraphs", "one\n\ntwo\n\nthr", false, []string{"one", "two"}, "thr"},
		{"waits for the next line", "one\n\n", false, nil, "one\n\n"},
		{"final takes the tail", "one\n\ntwo", true, []string{"one", "two"}, ""},
		{"fence keeps blank lines", "```\na\n\nb\n```\n\nafter\n\nx", false, []string{"```\na\n\nb\n```", "after"}, "x"},
		{"open fence stays open", "text\n\n```go\nfunc f() {\n\n", false, []string{"text"}, "```go\nfunc f() {\n\n"},
		{"loose list stays whole", "- a\n\n- b\n\nnext\n\ny", false, []string{"- a\n\n- b", "next"}, "y"},
		{"indented continuation", "1. item\n\n   more of it\n\nz\n\nw", false, []string{"1. item\n\n   more of it", "z"}, "w"},
		{"leading blank lines", "\n\n\none\n\ntwo\n", true, []string{"one", "two"}, ""},
		{"tilde fence", "~~~\n\n~~~\n\nq", true, []string{"~~~\n\n~~~", "q"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rest := splitBlocks(tt.src, tt.final)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("blocks = %q, want %q", got, tt.want)
			}
			if tt.src[rest:] != tt.rest {
				t.Errorf("rest = %q, want %q", tt.src[rest:], tt.rest)
			}
		})
	}
}

// Streaming a text delta by delta gives the same blocks as the whole text.
func TestMarkdownStreamingMatchesWhole(t *testing.T) {
	text := "# Title\n\nA paragraph with **bold**.\n\n- one\n- two\n\n```go\nfunc main() {\n\n\tprintln()\n}\n```\n\nThe end."
	whole := newMarkdown(text, true)
	whole.ensureSplit() // a finished text splits when first laid out
	for _, step := range []int{1, 3, 7} {
		d := newMarkdown("", false)
		for i := 0; i < len(text); i += step {
			d.append(text[i:min(len(text), i+step)])
		}
		d.setText(text, true)
		var a, b []string
		for _, blk := range whole.blocks {
			a = append(a, blk.src)
		}
		for _, blk := range d.blocks {
			b = append(b, blk.src)
		}
		if strings.Join(a, "|") != strings.Join(b, "|") || d.tail.src != "" {
			t.Errorf("step %d: blocks %q tail %q, want %q", step, b, d.tail.src, a)
		}
	}
}

func TestMarkdownRenderFitsAndCaches(t *testing.T) {
	d := newMarkdown("Some *markdown* "+strings.Repeat("word ", 40)+"\n\n```\n"+strings.Repeat("x", 200)+"\n```", true)
	lines, missing := d.lines(40, true)
	if len(missing) != 2 {
		t.Fatalf("missing %d blocks, want 2", len(missing))
	}
	if !strings.Contains(strings.Join(lines, "\n"), "*markdown*") {
		t.Errorf("plain fallback should show the source")
	}
	for _, blk := range missing {
		blk.r = mdRendering{key: mdKey{40, true, blk.src}, lines: renderMarkdown(blk.src, 40, true)}
	}
	lines, missing = d.lines(40, true)
	if len(missing) != 0 {
		t.Errorf("still missing %d", len(missing))
	}
	text := ansi.Strip(strings.Join(lines, "\n"))
	if strings.Contains(text, "*markdown*") || !strings.Contains(text, "markdown") {
		t.Errorf("not rendered:\n%s", text)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line %d wide: %q", w, ansi.Strip(l))
		}
		if strings.HasSuffix(ansi.Strip(l), " ") {
			t.Errorf("trailing spaces kept: %q", ansi.Strip(l))
		}
	}
	// Another width needs new renders.
	if _, missing = d.lines(60, true); len(missing) != 2 {
		t.Errorf("width change: missing %d", len(missing))
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"a\n\nb", 5, []string{"a", "", "b"}},
		{"tab\there", 20, []string{"tab    here"}},
		{"héllo wörld ünïcode", 11, []string{"héllo wörld", "ünïcode"}},
	}
	for _, tt := range tests {
		got := wrapText(tt.in, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tt.width {
				t.Errorf("%q wider than %d", l, tt.width)
			}
		}
	}
}

func TestFormatTokens(t *testing.T) {
	tests := map[int64]string{0: "0", 999: "999", 1000: "1K", 12345: "12.3K", 99999: "100K", 128000: "128K", 1047576: "1.05M", 2000000: "2M", -1500: "-1.5K"}
	for n, want := range tests {
		if got := formatTokens(n); got != want {
			t.Errorf("formatTokens(%d) = %q, want %q", n, got, want)
		}
	}
	if got := commas(1047576); got != "1,047,576" {
		t.Errorf("commas = %q", got)
	}
	if got := commas(-5500); got != "-5,500" {
		t.Errorf("commas = %q", got)
	}
}

// fixedItem is an item of n numbered lines.
type fixedItem struct {
	id, n int
}

func (f *fixedItem) toggle() bool { return false }

func (f *fixedItem) lines(*renderCtx) []string {
	out := make([]string, f.n)
	for i := range out {
		out[i] = fmt.Sprintf("item%d-line%d", f.id, i)
	}
	return out
}

func TestChatViewScrolling(t *testing.T) {
	c := newChatView()
	rc := &renderCtx{width: 40, th: newTheme(true)}
	for i := range 10 {
		c.add(&fixedItem{id: i, n: 5})
	}
	c.width, c.height = 40, 8
	c.layout(rc)
	if c.visible[len(c.visible)-1] != "item9-line4" || c.visible[0] != "item8-line2" {
		t.Fatalf("bottom layout: %q", c.visible)
	}
	c.scrollUp(rc, 3)
	c.layout(rc)
	if c.follow || c.visible[0] != "item7-line4" || c.visible[7] != "item9-line1" {
		t.Fatalf("after scrolling up 3: %q", c.visible)
	}
	// New content does not move a scrolled view.
	c.add(&fixedItem{id: 10, n: 5})
	c.layout(rc)
	if c.visible[0] != "item7-line4" {
		t.Errorf("view moved on new content: %q", c.visible)
	}
	c.scrollUp(rc, 1000)
	c.layout(rc)
	if c.visible[0] != "item0-line0" {
		t.Errorf("top: %q", c.visible)
	}
	c.scrollDown(rc, 6)
	c.layout(rc)
	if c.visible[0] != "item1-line1" {
		t.Errorf("down 6 from the top: %q", c.visible)
	}
	c.scrollDown(rc, 1000)
	c.layout(rc)
	if !c.follow || c.visible[7] != "item10-line4" {
		t.Errorf("back at the bottom: follow=%v %q", c.follow, c.visible)
	}
	if it, ok := c.itemAt(7); !ok || it.(*fixedItem).id != 10 {
		t.Errorf("itemAt(7) = %v", it)
	}
	// A short conversation sits at the bottom, padded above.
	s := newChatView()
	s.add(&fixedItem{id: 0, n: 2})
	s.width, s.height = 40, 5
	s.layout(rc)
	if s.visible[0] != "" || s.visible[3] != "item0-line0" {
		t.Errorf("short layout: %q", s.visible)
	}
	if _, ok := s.itemAt(0); ok {
		t.Errorf("padding row maps to an item")
	}
}

func TestHeadRows(t *testing.T) {
	tests := []struct {
		text        string
		width, rows int
		want        []string
		more        int
	}{
		{"a\nb\nc", 10, 5, []string{"a", "b", "c"}, 0},
		{"a\nb\nc\nd", 10, 2, []string{"a", "b"}, 2},
		{"aaaa bbbb cccc\nd", 4, 2, []string{"aaaa", "bbbb"}, 2},
		{"x\n\ny", 10, 2, []string{"x", ""}, 1},
		{strings.Repeat("line\n", 100000) + "end", 10, 4, []string{"line", "line", "line", "line"}, 99997},
	}
	for _, tt := range tests {
		got, more := headRows(tt.text, tt.width, tt.rows)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || more != tt.more {
			t.Errorf("headRows(%.20q, %d, %d) = %q, %d; want %q, %d", tt.text, tt.width, tt.rows, got, more, tt.want, tt.more)
		}
	}
}
