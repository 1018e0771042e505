package gfm

import (
	"fmt"
	"strings"
	"testing"
)

// show parses src and writes the document in a compact form: blocks
// separated by spaces; p(…) a paragraph, table(aligns){h[a|b] r[1|2]},
// list{item{…}}, quote{…}; inline ~(…) strikethrough, *(…) and **(…)
// emphasis, `…` code, <url|label> a bare URL (<label> when they are the
// same), [text](dest) a link, [ ] and [x] check boxes.
func show(src string) string {
	var b strings.Builder
	writeBlocks(&b, Parse(src))
	return b.String()
}

func writeBlocks(b *strings.Builder, n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		if c != n.FirstChild {
			b.WriteByte(' ')
		}
		writeBlock(b, c)
	}
}

func writeBlock(b *strings.Builder, n *Node) {
	switch n.Kind {
	case Paragraph:
		b.WriteString("p(")
		writeInlines(b, n)
		b.WriteString(")")
	case Table:
		var aligns []string
		for _, a := range n.Aligns {
			aligns = append(aligns, a.String())
		}
		fmt.Fprintf(b, "table(%s){", strings.Join(aligns, ","))
		for row := n.FirstChild; row != nil; row = row.Next {
			if row != n.FirstChild {
				b.WriteByte(' ')
			}
			switch row.Kind {
			case TableHeader:
				b.WriteString("h[")
			case TableRow:
				b.WriteString("r[")
			default:
				fmt.Fprintf(b, "?%s[", row.Kind)
			}
			i := 0
			for cell := row.FirstChild; cell != nil; cell = cell.Next {
				if cell != row.FirstChild {
					b.WriteByte('|')
				}
				if cell.Kind != TableCell || i >= len(n.Aligns) || cell.Align != n.Aligns[i] {
					b.WriteString("(misaligned)")
				}
				writeInlines(b, cell)
				i++
			}
			b.WriteString("]")
		}
		b.WriteString("}")
	case List:
		b.WriteString("list{")
		writeBlocks(b, n)
		b.WriteString("}")
	case ListItem:
		b.WriteString("item{")
		writeBlocks(b, n)
		b.WriteString("}")
	case Blockquote:
		b.WriteString("quote{")
		writeBlocks(b, n)
		b.WriteString("}")
	case Heading:
		fmt.Fprintf(b, "h%d(", n.Level)
		writeInlines(b, n)
		b.WriteString(")")
	default:
		b.WriteString(n.Kind.String())
	}
}

func writeInlines(b *strings.Builder, n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		writeInline(b, c)
	}
}

func writeInline(b *strings.Builder, n *Node) {
	switch n.Kind {
	case Text:
		b.WriteString(n.Text)
	case SoftBreak, HardBreak:
		b.WriteByte(' ')
	case Strikethrough:
		b.WriteString("~(")
		writeInlines(b, n)
		b.WriteString(")")
	case Emphasis:
		b.WriteString(strings.Repeat("*", n.Level) + "(")
		writeInlines(b, n)
		b.WriteString(")")
	case CodeSpan:
		b.WriteString("`" + n.Text + "`")
	case AutoLink:
		if n.Dest == n.Text {
			fmt.Fprintf(b, "<%s>", n.Text)
		} else {
			fmt.Fprintf(b, "<%s|%s>", n.Dest, n.Text)
		}
	case Link:
		b.WriteByte('[')
		writeInlines(b, n)
		fmt.Fprintf(b, "](%s)", n.Dest)
	case TaskCheckBox:
		if n.Checked {
			b.WriteString("[x]")
		} else {
			b.WriteString("[ ]")
		}
	default:
		fmt.Fprintf(b, "%s(", n.Kind)
		writeInlines(b, n)
		b.WriteString(")")
	}
}

type parseCase struct {
	name, src, want string
}

func runCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := show(tt.src); got != tt.want {
				t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestTable(t *testing.T) {
	runCases(t, []parseCase{
		{"alignments", "| l | c | r | n |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |",
			"table(left,center,right,none){h[l|c|r|n] r[1|2|3|4]}"},
		{"no outer pipes", "a | b\n--|:--\n1 | 2",
			"table(none,left){h[a|b] r[1|2]}"},
		{"one column", "| a |\n| - |\n| b |", "table(none){h[a] r[b]}"},
		{"one column without pipes", "a\n:-:\nb", "table(center){h[a] r[b]}"},
		{"spaces around the colons", "| a | b |\n|  :---  |  ---:  |", "table(left,right){h[a|b]}"},
		{"escaped pipe stays in its cell", "| a \\| b | c |\n|---|---|\n| x\\|y | z\\| |",
			"table(none,none){h[a | b|c] r[x|y|z|]}"},
		{"escaped pipe in a code span is a pipe", "| `a\\|b` | c |\n|---|---|\n| `\\|` | `x \\| y \\| z` |",
			"table(none,none){h[`a|b`|c] r[`|`|`x | y | z`]}"},
		{"a pipe in a code span splits the cell", "| `a|b` |\n|---|", "p(| `a|b` | |---|)"},
		{"a pipe in a code span of a body row", "| a | b |\n|---|---|\n| `x|y` |",
			"table(none,none){h[a|b] r[`x|y`]}"},
		{"fewer cells get empty ones", "| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 |",
			"table(none,none,none){h[a|b|c] r[1||] r[1|2|]}"},
		{"more cells lose the extra", "| a | b |\n|---|---|\n| 1 | 2 | 3 | 4 |",
			"table(none,none){h[a|b] r[1|2]}"},
		{"a line without pipes is a row", "| a | b |\n|---|---|\nbar\n\nbar",
			"table(none,none){h[a|b] r[bar|]} p(bar)"},
		{"empty cells", "| a | b |\n|---|---|\n| | x |\n||",
			"table(none,none){h[a|b] r[|x] r[|]}"},
		{"inline content in cells", "| **a** | ~~b~~ |\n|---|---|\n| https://x.io | [l](u) |",
			"table(none,none){h[**(a)|~(b)] r[<https://x.io>|[l](u)]}"},
		{"header count must match", "| a | b |\n|---|\n| 1 | 2 |", "p(| a | b | |---| | 1 | 2 |)"},
		{"a later line may still start a table", "| a | b |\n|---|\n| c |\n|---|\n| d |",
			"p(| a | b | |---|) table(none){h[c] r[d]}"},
		{"after a paragraph line", "intro\n| a | b |\n|---|---|\n| 1 | 2 |",
			"p(intro) table(none,none){h[a|b] r[1|2]}"},
		{"after two paragraph lines", "one\ntwo\na | b\n-|-",
			"p(one two) table(none,none){h[a|b]}"},
		{"a delimiter row first is text", "|---|---|\n| a | b |", "p(|---|---| | a | b |)"},
		{"not a delimiter row", "| a | b |\n|-x-|---|", "p(| a | b | |-x-|---|)"},
		{"a colon alone is not a cell", "| a | b |\n|:|---|", "p(| a | b | |:|---|)"},
		{"a space inside the marker", "| a |\n|: --|", "p(| a | |: --|)"},
		{"a blank line ends it", "| a |\n|---|\n| 1 |\n\ntext", "table(none){h[a] r[1]} p(text)"},
		{"a list ends it", "| a |\n|---|\n| 1 |\n- item", "table(none){h[a] r[1]} list{item{p(item)}}"},
		{"in a list item", "- | a |\n  |---|\n  | 1 |", "list{item{table(none){h[a] r[1]}}}"},
		{"in a quote", "> a | b\n> --|--\n> 1 | 2", "quote{table(none,none){h[a|b] r[1|2]}}"},
		{"a dashed line under text is a heading", "a | b\n---", "h2(a | b)"},
		{"prose with pipes is text", "a | b\nc | d", "p(a | b c | d)"},
		// Where our paragraphs differ from GFM's table blocks: a
		// setext underline ends the table (GFM: a row).
		{"a rule under the rows", "| a |\n|---|\n| b |\n---", "table(none){h[a] r[b]} ThematicBreak"},
		{"equals under the rows", "| a |\n|---|\n| b |\n===", "table(none){h[a] r[b]} p(===)"},
	})
}

func TestStrikethrough(t *testing.T) {
	runCases(t, []parseCase{
		{"two tildes", "a ~~b c~~ d", "p(a ~(b c) d)"},
		{"one tilde", "a ~b~ c", "p(a ~(b) c)"},
		{"inside words", "a~~b~~c and x~y~z", "p(a~(b)c and x~(y)z)"},
		{"lengths must match", "~~a~ b", "p(~~a~ b)"},
		{"lengths must match, either way", "~a~~ b", "p(~a~~ b)"},
		{"three tildes are text", "x ~~~a~~~", "p(x ~~~a~~~)"},
		{"a long run is text", "a ~~~~~~ b ~~c~~", "p(a ~~~~~~ b ~(c))"},
		{"not flanking", "a ~~ b ~~ c", "p(a ~~ b ~~ c)"},
		{"code span wins", "`~~a~~` and ~~`b`~~", "p(`~~a~~` and ~(`b`))"},
		{"with emphasis", "**~~a~~** ~~*b*~~", "p(**(~(a)) ~(*(b)))"},
		{"nested lengths", "~~a ~b~ c~~", "p(~(a ~(b) c))"},
		{"across a link", "~~a [b](u) c~~", "p(~(a [b](u) c))"},
		{"inside a link", "[~~a~~](u)", "p([~(a)](u))"},
		{"closer inside a link, opener outside", "~x [a~](u) b~", "p(~(x [a~](u) b))"},
		{"escaped", `\~~a~ \~~b~~`, `p(~~(a) ~~b~~)`},
		{"unmatched", "~~a", "p(~~a)"},
		{"across lines", "~~a\nb~~", "p(~(a b))"},
		{"not across paragraphs", "~~a\n\nb~~", "p(~~a) p(b~~)"},
	})
}

func TestTaskList(t *testing.T) {
	runCases(t, []parseCase{
		{"unchecked", "- [ ] a", "list{item{p([ ]a)}}"},
		{"checked", "- [x] a\n- [X] b", "list{item{p([x]a)} item{p([x]b)}}"},
		{"ordered", "1. [x] a", "list{item{p([x]a)}}"},
		{"loose list", "- [ ] a\n\n- [x] b", "list{item{p([ ]a)} item{p([x]b)}}"},
		{"tab after", "- [x]\ta", "list{item{p([x]a)}}"},
		{"other letter", "- [y] a", "list{item{p([y] a)}}"},
		{"no space after", "- [x]a", "list{item{p([x]a)}}"},
		{"nothing after", "- [x]", "list{item{p([x])}}"},
		{"not at the start", "- a [x] b", "list{item{p(a [x] b)}}"},
		{"not in a paragraph", "[x] a", "p([x] a)"},
		{"second paragraph", "- a\n\n  [x] b", "list{item{p(a) p([x] b)}}"},
		{"then a link", "- [ ] [l](u)", "list{item{p([ ][l](u))}}"},
		{"nested", "- [x] a\n  - [ ] b", "list{item{p([x]a) list{item{p([ ]b)}}}}"},
	})
}

func TestBareURLs(t *testing.T) {
	runCases(t, []parseCase{
		{"https", "see https://x.io/a?b=c#d now", "p(see <https://x.io/a?b=c#d> now)"},
		{"http and ftp", "http://x.io ftp://f.x.io/f.tgz", "p(<http://x.io> <ftp://f.x.io/f.tgz>)"},
		{"www", "at www.x.io/p.", "p(at <http://www.x.io/p|www.x.io/p>.)"},
		{"start of line", "https://x.io", "p(<https://x.io>)"},
		{"short host and port", "http://localhost:8080/x", "p(<http://localhost:8080/x>)"},
		{"trailing punctuation", "https://x.io/a. https://x.io/b, https://x.io/c?! https://x.io/d:",
			"p(<https://x.io/a>. <https://x.io/b>, <https://x.io/c>?! <https://x.io/d>:)"},
		{"in parentheses", "(https://x.io/a)", "p((<https://x.io/a>))"},
		{"balanced parentheses stay", "https://x.io/a_(b) and (https://x.io/a_(b)).",
			"p(<https://x.io/a_(b)> and (<https://x.io/a_(b)>).)"},
		{"unbalanced parentheses go", "https://x.io/a))", "p(<https://x.io/a>)))"},
		{"inner parentheses", "https://x.io/(a)(b)c", "p(<https://x.io/(a)(b)c>)"},
		{"entity at the end", "www.x.io/search?q=a&hl; www.x.io/?q=a&b", "p(<http://www.x.io/search?q=a|www.x.io/search?q=a>&hl; <http://www.x.io/?q=a&b|www.x.io/?q=a&b>)"},
		{"semicolon not an entity", "https://x.io/a;b; https://x.io/&;", "p(<https://x.io/a;b;> <https://x.io/&;>)"},
		{"stops at <", "https://x.io/a<b", "p(<https://x.io/a><b)"},
		{"in emphasis", "*https://x.io* _www.x.io_", "p(*(<https://x.io>) *(<http://www.x.io|www.x.io>))"},
		{"in strikethrough", "~~https://x.io~~", "p(~(<https://x.io>))"},
		{"not inside a word", "xhttps://x.io awww.x.io", "p(xhttps://x.io awww.x.io)"},
		{"no domain", "http:// https://. www. www.-x www..x", "p(http:// https://. www. www.-x www..x)"},
		{"upper-case scheme is text", "HTTPS://X.IO", "p(HTTPS://X.IO)"},
		{"not in a code span", "`https://x.io`", "p(`https://x.io`)"},
		{"not in a link's text", "[see https://x.io](u)", "p([see https://x.io](u))"},
		{"angle autolink unchanged", "<https://x.io>", "p(<https://x.io>)"},
		{"e-mail is text", "mail bob@example.com or bob@www.x.io or mailto:bob@x.io",
			"p(mail bob@example.com or bob@www.x.io or mailto:bob@x.io)"},
		{"underscore in the domain", "www.a_b.x_y.io", "p(<http://www.a_b.x_y.io|www.a_b.x_y.io>)"},
		{"non-ASCII path", "https://x.io/中文 ok", "p(<https://x.io/中文> ok)"},
		{"after a tab", "a\thttps://x.io", "p(a\t<https://x.io>)"},
	})
}
