package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/tui/markdown/gfm"
)

// plainLines renders and strips the styling.
func plainLines(src string, width int) []string {
	var out []string
	for _, l := range Render(src, width, true) {
		out = append(out, ansi.Strip(l))
	}
	return out
}

// ownEscapes matches the only escape sequences the renderer writes: SGR
// and OSC 8 hyperlinks (opened with a printable ASCII URL, or closed).
var ownEscapes = regexp.MustCompile("\x1b\\[[0-9;:]*m|\x1b\\]8;;[!-~]*\a")

// checkLines asserts the contract on rendered lines: no line wider than
// width, no trailing space, no blank first or last line, no control
// character but those in the renderer's own sequences.
func checkLines(t *testing.T, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, over %d: %q", i, w, width, ansi.Strip(l))
		}
		s := ansi.Strip(l)
		if strings.HasSuffix(s, " ") {
			t.Errorf("line %d has trailing spaces: %q", i, s)
		}
		rest := ownEscapes.ReplaceAllString(l, "")
		if j := strings.IndexFunc(rest, func(r rune) bool {
			return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0
		}); j >= 0 {
			t.Errorf("line %d has a control character at %d: %q", i, j, l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("line %d is not valid UTF-8: %q", i, l)
		}
	}
	if len(lines) > 0 && (ansi.Strip(lines[0]) == "" || ansi.Strip(lines[len(lines)-1]) == "") {
		t.Errorf("blank line at an end: %q", lines)
	}
}

func TestRenderConstructs(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		width int
		want  string
		// styled lists substrings the raw output must contain (a style
		// applied where it matters).
		styled []string
	}{
		{name: "paragraph wraps", src: "one two three four five six", width: 10,
			want: "one two\nthree four\nfive six"},
		{name: "soft break is a space", src: "one\ntwo", width: 20, want: "one two"},
		{name: "hard break", src: "one  \ntwo\\\nthree", width: 20, want: "one\ntwo\nthree"},
		{name: "paragraphs", src: "one\n\ntwo", width: 20, want: "one\n\ntwo"},
		{name: "strong and emphasis", src: "a **b** *c* ~~d~~", width: 20, want: "a b c d",
			styled: []string{"\x1b[1mb\x1b[m", "\x1b[3mc\x1b[m", "\x1b[9md\x1b[m"}},
		{name: "code span", src: "run `go test` now", width: 40, want: "run go test now",
			styled: []string{"mgo test\x1b[m"}},
		{name: "escapes and entities", src: `\*not em\* &amp; &lt;b&gt; &copy; &#65;&#x42;`, width: 40,
			want: "*not em* & <b> © AB"},
		{name: "heading 1", src: "# Title", width: 20, want: " Title",
			styled: []string{"\x1b[1;"}},
		{name: "heading 2", src: "## Part *two*", width: 20, want: "## Part two"},
		{name: "heading 3 wraps", src: "### a long heading text", width: 12, want: "### a long\nheading text"},
		{name: "link", src: "see [the docs](https://x.io/d) now", width: 40,
			want:   "see the docs (https://x.io/d) now",
			styled: []string{"\x1b]8;;https://x.io/d\a", "\x1b]8;;\a"}},
		{name: "link same as text", src: "[https://x.io](https://x.io)", width: 40, want: "https://x.io"},
		{name: "autolink", src: "<https://x.io> and https://y.io/p.", width: 40, want: "https://x.io and https://y.io/p.",
			styled: []string{"\x1b]8;;https://x.io\a", "\x1b]8;;https://y.io/p\a"}},
		{name: "link to a file has no hyperlink", src: "[f](file:///etc/passwd)", width: 40, want: "f (file:///etc/passwd)"},
		{name: "image", src: "![a cat](https://x.io/c.png)", width: 40, want: "[image: a cat] (https://x.io/c.png)"},
		{name: "bullets", src: "- one\n- two\n  - nested\n    - deeper", width: 20,
			want: "• one\n• two\n  ◦ nested\n    ▪ deeper"},
		{name: "bullet item wraps under its text", src: "- one two three four", width: 10,
			want: "• one two\n  three\n  four"},
		{name: "loose list", src: "- one\n\n- two", width: 20, want: "• one\n\n• two"},
		{name: "item with paragraphs", src: "- one\n\n  more\n- two", width: 20, want: "• one\n\n  more\n\n• two"},
		{name: "ordered", src: "1. one\n2. two", width: 20, want: "1. one\n2. two"},
		{name: "ordered from 9 aligns", src: "9. nine\n10. ten", width: 20, want: " 9. nine\n10. ten"},
		{name: "ordered with paren", src: "1) one", width: 20, want: "1) one"},
		{name: "task list", src: "- [ ] todo\n- [x] done", width: 20, want: "[ ] todo\n[✓] done"},
		{name: "quote", src: "> quoted text\n> more", width: 40, want: "│ quoted text more"},
		{name: "quote with paragraphs", src: "> a\n>\n> b", width: 40, want: "│ a\n│\n│ b"},
		{name: "nested quote", src: "> a\n>> b", width: 40, want: "│ a\n│\n│ │ b"},
		{name: "quote wraps", src: "> one two three", width: 10, want: "│ one two\n│ three"},
		{name: "list in quote", src: "> - a\n> - b", width: 20, want: "│ • a\n│ • b"},
		{name: "quote in list", src: "- > a", width: 20, want: "• │ a"},
		{name: "thematic break", src: "a\n\n---\n\nb", width: 10, want: "a\n\n──────────\n\nb"},
		{name: "fenced code", src: "```\nx  :=  1\n\n  y\n```", width: 20, want: "  x  :=  1\n\n    y"},
		{name: "tabs in code", src: "```\n\tx\n```", width: 20, want: "      x"},
		{name: "indented code", src: "    code here", width: 20, want: "  code here"},
		{name: "code wraps after a space", src: "```\naaaa bbbb cccc dddd\n```", width: 16,
			want: "  aaaa bbbb cccc\n  dddd"},
		{name: "code cut without spaces", src: "```\n" + strings.Repeat("x", 12) + "\n```", width: 10,
			want: "  xxxxxxxx\n  xxxx"},
		{name: "html block", src: "<div>\nhi\n</div>", width: 20, want: "<div>\nhi\n</div>"},
		{name: "inline html", src: "a <b>b</b> c", width: 20, want: "a <b>b</b> c"},
		{name: "table", src: "| a | bb |\n|---|---|\n| 1 | 2 |", width: 40,
			want: "a │ bb\n──┼───\n1 │ 2", styled: []string{"\x1b[1ma\x1b[m"}},
		{name: "table alignment", src: "| l | c | r |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n| 444 | 555 | 666 |", width: 40,
			want: "l   │  c  │   r\n────┼─────┼────\n1   │  2  │   3\n444 │ 555 │ 666"},
		{name: "table wraps a wide column", src: "| k | v |\n|---|---|\n| a | one two three four |", width: 14,
			want: "k │ v\n──┼───────────\na │ one two\n  │ three four"},
		{name: "blocks separated once", src: "a\n\n\n\nb", width: 10, want: "a\n\nb"},
		// GFM extensions (package gfm).
		{name: "table escaped pipes", src: "| a \\| b | `x\\|y` |\n|---|:-:|\n| 1 | 2 |", width: 40,
			want: "a | b │ x|y\n──────┼────\n1     │  2", styled: []string{"mx|y\x1b[m"}},
		{name: "ragged table rows", src: "| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |", width: 40,
			want: "a │ b\n──┼──\n1 │\n1 │ 2"},
		{name: "table after a paragraph line", src: "Results:\n| a | b |\n|---|---|\n| 1 | 2 |", width: 40,
			want: "Results:\n\na │ b\n──┼──\n1 │ 2"},
		{name: "strikethrough, one tilde, in words", src: "~a~ x~~y~~z `~~c~~`", width: 40, want: "a xyz ~~c~~",
			styled: []string{"\x1b[9ma\x1b[m", "\x1b[9my\x1b[m"}},
		{name: "task list checked and not", src: "- [X] done\n- [ ] todo\n- [y] not a task", width: 40,
			want: "[✓] done\n[ ] todo\n• [y] not a task"},
		{name: "bare URLs", src: "See www.x.io/a, (https://x.io/b_(c)). Or ftp://f.io.", width: 60,
			want:   "See www.x.io/a, (https://x.io/b_(c)). Or ftp://f.io.",
			styled: []string{"\x1b]8;;http://www.x.io/a\a", "\x1b]8;;https://x.io/b_(c)\a"}},
		{name: "e-mail addresses are text", src: "mail bob@example.com", width: 40, want: "mail bob@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := Render(tt.src, tt.width, true)
			checkLines(t, lines, tt.width)
			got := strings.Join(plainLines(tt.src, tt.width), "\n")
			if got != tt.want {
				t.Errorf("Render(%q, %d):\n%s\nwant:\n%s", tt.src, tt.width, got, tt.want)
			}
			raw := strings.Join(lines, "\n")
			for _, s := range tt.styled {
				if !strings.Contains(raw, s) {
					t.Errorf("output lacks %q:\n%q", s, raw)
				}
			}
		})
	}
}

func TestRenderEmpty(t *testing.T) {
	for _, src := range []string{"", "\n\n", "   \n\t"} {
		if got := Render(src, 40, true); len(got) != 0 {
			t.Errorf("Render(%q) = %q, want nothing", src, got)
		}
	}
}

// The palettes differ by background and both style the same constructs.
func TestRenderLightAndDark(t *testing.T) {
	src := "**b** `c` [l](https://x.io)\n\n```go\nfunc f() {}\n```"
	dark := strings.Join(Render(src, 40, true), "\n")
	light := strings.Join(Render(src, 40, false), "\n")
	if dark == light {
		t.Error("dark and light renderings are the same")
	}
	if ansi.Strip(dark) != ansi.Strip(light) {
		t.Errorf("text differs:\n%s\n%s", ansi.Strip(dark), ansi.Strip(light))
	}
}

// A document of every construct, at narrow to wide widths, with wide
// characters: every line fits, no word is lost.
func TestRenderWidths(t *testing.T) {
	src := strings.Join([]string{
		"# A heading with several words",
		"A paragraph with **strong**, *emphasis*, `code spans` and a [link](https://example.com/a/long/path) in it, " +
			"then 中文的句子很长需要换行 and emoji 🎉🚀✨ between words, and a verylongwordthatcannotfitanywhere.",
		"- a list item that wraps\n  - a nested item that wraps too\n- [x] a task",
		"> a quote that goes on for a while\n> > and a nested one",
		"| col | 中文 | n |\n|---|---|--:|\n| value one | 文字 | 1 |\n| 🎉 | two words | 22 |",
		"```go\nfunc main() { fmt.Println(\"a string that is long enough to wrap\") } // 注释\n```",
		"---",
	}, "\n\n")
	var words []string
	for _, w := range strings.Fields("heading several strong emphasis code link paragraph between verylong nested task quote nested col value main Println") {
		words = append(words, w)
	}
	for _, width := range []int{20, 40, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			lines := Render(src, width, true)
			checkLines(t, lines, width)
			text := strings.Join(plainLines(src, width), "\n")
			flat := strings.Join(strings.Fields(text), "")
			for _, w := range words {
				if !strings.Contains(flat, w) {
					t.Errorf("%q lost at width %d:\n%s", w, width, text)
				}
			}
			for _, w := range []string{"中文的句子很长需要换行", "🎉🚀✨"} {
				if !strings.Contains(flat, w) {
					t.Errorf("%q lost at width %d:\n%s", w, width, text)
				}
			}
		})
	}
}

func TestWrapWideCharacters(t *testing.T) {
	tests := []struct {
		src   string
		width int
		want  string
	}{
		// Between CJK characters a line may break without a space.
		{"中文的句子很长", 6, "中文的\n句子很\n长"},
		{"ab 中文 cd", 5, "ab 中\n文 cd"},
		// A wide character never straddles the edge.
		{"a中文", 4, "a中\n文"},
		{"🎉🎉🎉", 4, "🎉🎉\n🎉"},
		{"x 🎉 y", 3, "x\n🎉\ny"},
	}
	for _, tt := range tests {
		got := strings.Join(plainLines(tt.src, tt.width), "\n")
		if got != tt.want {
			t.Errorf("%q at %d:\n%s\nwant:\n%s", tt.src, tt.width, got, tt.want)
		}
		checkLines(t, Render(tt.src, tt.width, true), tt.width)
	}
}

// Terminal escapes in the input, raw or as entity references, never reach
// the output: only the renderer's own SGR and OSC 8 sequences do.
func TestRenderNeverPassesEscapes(t *testing.T) {
	evil := []string{
		"\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]52;c;aGk=\x1b\\", "\u009b31m", "\x1bP+q\x1b\\",
		"&#27;[31m", "&#x1b;]0;t&#7;", "&#155;2J", "&#x9B;H", "&#0;", "\x00", "\r\x1b[2K",
	}
	for _, e := range evil {
		for _, tmpl := range []string{
			"text %s text", "`code %s`", "```\ncode %s\n```", "```go\n\"%s\" // %s\n```",
			"[link %s](https://x.io/%s)", "[a](http://x.io/\"%s\")", "![alt %s](https://x/%s)", "<a href=\"%s\">",
			"# head %s", "- item %s", "> quote %s", "| %s | b |\n|---|---|\n| %s | c |", "<https://x.io/%s>",
			"<div>\n%s\n</div>", "[ref %s][r]\n\n[r]: https://x.io/%s",
		} {
			src := strings.ReplaceAll(tmpl, "%s", e)
			lines := Render(src, 40, true)
			checkLines(t, lines, 40)
			for _, l := range lines {
				for _, m := range regexp.MustCompile("\x1b\\]8;;([^\a]*)\a").FindAllStringSubmatch(l, -1) {
					if m[1] != "" && hyperlink(m[1]) != m[1] {
						t.Errorf("%q: unsafe hyperlink %q", src, m[1])
					}
				}
			}
		}
	}
}

// Hostile inputs finish in bounded time and keep nesting bounded.
func TestRenderHostileInput(t *testing.T) {
	nestedLists := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(strings.Repeat("  ", i) + "- x\n")
		}
		return b.String()
	}
	tests := []struct {
		name string
		src  string
	}{
		{"10 MB of prose", strings.Repeat("word **bold** `code` [l](http://x.io) more words\n", 10<<20/50)},
		{"10 MB on one line", strings.Repeat("word ", 2<<20)},
		{"100,000 nested quotes", strings.Repeat(">", 100000) + " x"},
		{"50,000 nested list markers", strings.Repeat("- ", 50000) + "x"},
		{"2,000 indented list levels", nestedLists(2000)},
		{"quadratic link destinations", strings.Repeat("[a](", 100000)},
		{"quadratic image destinations", strings.Repeat("![a](", 100000)},
		{"brackets", strings.Repeat("[", 200000)},
		{"emphasis", strings.Repeat("*a **a ", 50000)},
		{"a table of 100,000 rows", "|a|b|\n|-|-|\n" + strings.Repeat("|x|y|\n", 100000)},
		{"a table of 5,000 columns", strings.Repeat("|a", 5000) + "|\n" + strings.Repeat("|-", 5000) + "|\n"},
		{"a code block of 100,000 lines", "```go\n" + strings.Repeat("x := \"s\" // c\n", 100000) + "```"},
		// Under the size limit: parsed and rendered as Markdown.
		{"200 KB of prose", strings.Repeat("word **bold** `code` [l](http://x.io) more words\n", 200<<10/50)},
		{"a table of 10,000 rows", "|a|b|\n|-|-|\n" + strings.Repeat("|x y z|1|\n", 10000)},
		{"a code block of 10,000 lines", "```go\n" + strings.Repeat("x := \"s\" + 0x1f // c\n", 10000) + "```"},
		{"a code line of 200 KB", "```js\n" + strings.Repeat("a=\"s\";", 200<<10/6) + "\n```"},
		{"32 nested quotes", strings.Repeat("> ", maxNesting) + strings.Repeat("words ", 10000)},
		{"link destinations under the limit", strings.Repeat(strings.Repeat("[a](", 500)+"\n", 100)},
		{"unclosed raw HTML", strings.Repeat("a <? ", 40000)},
		{"unclosed HTML comments", strings.Repeat("a <!-- ", 30000)},
		{"underscores", strings.Repeat("a_", 100000)},
		{"one bare URL of 200 KB", strings.Repeat("http://a", 200<<10/8)},
		{"bare URLs", strings.Repeat("http://a ", 200<<10/9)},
		{"a run of tildes", "a " + strings.Repeat("~", 200<<10)},
		{"runs of four tildes", "a" + strings.Repeat(" ~~~~", 200<<10/5)},
		{"closing tildes with nothing to close", strings.Repeat(" ~~a", 100<<10/4) + strings.Repeat(" a~", 100<<10/3)},
		{"a 2,000-column table", strings.Repeat("|a", 2000) + "|\n" + strings.Repeat("|:-", 2000) + "|\n" +
			strings.Repeat(strings.Repeat("|b", 2000)+"|\n", 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			lines := Render(tt.src, 80, true)
			// Generous for a shared machine and -race; a quadratic case
			// takes minutes.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if len(lines) == 0 {
				t.Fatal("no output")
			}
			for _, l := range lines[:min(len(lines), 2000)] {
				if w := ansi.StringWidth(l); w > 80 {
					t.Fatalf("line %d cells wide: %q", w, ansi.Strip(l))
				}
			}
		})
	}
}

// Containers deeper than maxDepth stop indenting: the text keeps room.
func TestRenderDepthBounded(t *testing.T) {
	src := strings.Repeat("> ", 20) + "deep text"
	lines := plainLines(src, 80)
	if len(lines) != 1 {
		t.Fatalf("lines = %q", lines)
	}
	if n := strings.Count(lines[0], "│"); n != maxDepth {
		t.Errorf("%d bars, want %d: %q", n, maxDepth, lines[0])
	}
	// At a narrow width the indents stop where the text would get too
	// little room.
	lines = plainLines(src, 20)
	for _, l := range lines {
		if strings.Count(l, "│") > (20-minContent)/2 {
			t.Errorf("too many bars at width 20: %q", l)
		}
	}
}

func TestPlainOnly(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"# fine\n\n- a\n  - b\n\n[x](https://y)", false},
		{strings.Repeat("a", maxMarkdownBytes+1), true},
		{strings.Repeat("> ", maxNesting+1) + "x", true},
		{strings.Repeat("> ", maxNesting) + "x", false},
		{strings.Repeat("[a](", 10000), true},
		{strings.Repeat("[a](b) ", 30) + "\n", false},
		{strings.Repeat("a <? ", 40000), true},
		{strings.Repeat("<!-- c -->\n", 100), false},
		// Inside a code fence nothing counts.
		{"```\n" + strings.Repeat("> ", 100) + "\n```", false},
	}
	for _, tt := range tests {
		if got := plainOnly(tt.src); got != tt.want {
			t.Errorf("plainOnly(%.40q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// Text shown plain (too large to parse) is still wrapped and clean.
func TestRenderPlainFallback(t *testing.T) {
	src := strings.Repeat("> ", 40) + "**x**\tand a long line of words to wrap"
	lines := Render(src, 20, true)
	checkLines(t, lines, 20)
	if got := strings.Join(plainLines(src, 200), "\n"); !strings.Contains(got, "**x**") {
		t.Errorf("fallback should show the source: %q", got)
	}
}

func TestShareWidth(t *testing.T) {
	tests := []struct {
		natural []int
		room    int
		want    []int
	}{
		{[]int{3, 4}, 10, []int{3, 4}},
		{[]int{3, 30}, 20, []int{3, 17}},
		{[]int{30, 30}, 20, []int{10, 10}},
		{[]int{2, 30, 30}, 21, []int{2, 10, 9}},
		{[]int{0, 5}, 3, []int{1, 2}},
		{[]int{5, 5, 5}, 2, []int{1, 1, 1}},
	}
	for _, tt := range tests {
		if got := shareWidth(tt.natural, tt.room); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("shareWidth(%v, %d) = %v, want %v", tt.natural, tt.room, got, tt.want)
		}
	}
}

// Render is safe for concurrent use (run with -race).
func TestRenderConcurrent(t *testing.T) {
	src := "# T\n\n- a **b**\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc f() {}\n```"
	want := strings.Join(Render(src, 40, true), "\n")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if got := strings.Join(Render(src, 40, j%2 == 0), "\n"); j%2 == 0 && got != want {
					t.Errorf("concurrent render differs")
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{"# h\n\n- a\n- b", "| a |\n|---|\n| b |", "```go\nx\n```", "> q", "[a](http://b)", "中文🎉", "\x1b[31m",
		"p\n| a \\| b | `c\\|d` |\n|:-|-:|\n| 1 |\n| 1 | 2 | 3 |", "~~a~~ ~b~ ~~c~ x~~y~~z ~~~d~~~",
		"- [ ] a\n- [x] b\n  1. [X] c", "see www.x.io/a, (https://x.io/b_(c)). bob@x.io *http://y.io*"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = 1 + abs(width)%200
		checkLines(t, Render(src, width, true), width)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestRenderSurvivesAParserPanic checks that a text the parser or the
// renderer cannot handle is shown as plain text instead of taking the chat
// down with it (rendering runs off the chat's event loop, where a panic
// would end the process).
func TestRenderSurvivesAParserPanic(t *testing.T) {
	old := parse
	parse = func(string) *gfm.Node { panic("index out of range [3] with length 3") }
	defer func() { parse = old }()
	lines := Render("# Title\n\nsome *text* here", 40, true)
	got := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(got, "# Title") || !strings.Contains(got, "some *text* here") {
		t.Fatalf("fallback render = %q", got)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40: %q", l)
		}
	}
}
