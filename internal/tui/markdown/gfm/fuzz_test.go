package gfm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"| a | b |\n|:-|-:|\n| `x\\|y` | z |\n| 1 |\n| 1 | 2 | 3 |",
	"intro\na | b\n--|--\n\n> | q |\n> |---|",
	"~~a~~ ~b~ ~~c~ ~d~~ ~~~e~~~ \\~~f~ a~~b~~c",
	" ~~a ~~b a~ b~ [~x](u)~ ~[a~](u) b~",
	"- [ ] a\n- [x] b\n  - [X] c\n1. [ ]\td",
	"see https://x.io/a_(b)). and www.x.io/?q=a&amp; or (http://y.io/) bob@x.io",
	"*https://x.io* _www.x.io_ ~~http://a.b~~ xhttps://no",
	"```\n| a |\n|---|\n```",
	"[see https://x.io](https://y.io) `https://z.io` <https://w.io>",
	"# h\n\nSetext\n---\n\n> q\nlazy\n\n1. a\n\n   b\n2) c\n\n    code\n\n<div>\nx\n</div>",
	"[ref]: /u \"t\"\n\n[ref] [x][ref] ![i][ref] *a **b** c* _d_ `e` <a href=\"x\"> &amp; &#65; \\* a  \nb",
	"***a*** **a*b*c** *a**b**c* [a *b](c)* [[a]](b) ![a [b](c)](d) <!-- c --> <?p?>",
}

// FuzzParse checks the documents' shape on any input: no panic, every
// block's children blocks and every inline's children inlines, every
// table row as wide as the table, every cell aligned as its column,
// check boxes only at the start of an item's first paragraph, lists of
// items only, bare URLs that start with a scheme or "www." and hold no
// blank, and text that is valid UTF-8 when the input is.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc := Parse(src)
		var walk func(n *Node)
		walk = func(n *Node) {
			var prev *Node
			for c := n.FirstChild; c != nil; c = c.Next {
				if c.Parent != n || c.Prev != prev {
					t.Fatalf("%q: %s's links are broken", src, c.Kind)
				}
				prev = c
				if n.Kind.IsBlock() && n.Kind != Paragraph && n.Kind != Heading && n.Kind != TableCell && !c.Kind.IsBlock() {
					t.Errorf("%q: inline %s in %s", src, c.Kind, n.Kind)
				}
				if !n.Kind.IsBlock() && c.Kind.IsBlock() {
					t.Errorf("%q: block %s in %s", src, c.Kind, n.Kind)
				}
				if (n.Kind == List) != (c.Kind == ListItem) {
					t.Errorf("%q: %s in %s", src, c.Kind, n.Kind)
				}
				walk(c)
			}
			if n.LastChild != prev {
				t.Fatalf("%q: %s's last child is wrong", src, n.Kind)
			}
			switch n.Kind {
			case Table:
				for row := n.FirstChild; row != nil; row = row.Next {
					if row.ChildCount() != len(n.Aligns) {
						t.Errorf("%q: a row of %d cells in a table of %d columns", src, row.ChildCount(), len(n.Aligns))
					}
					i := 0
					for c := row.FirstChild; c != nil; c = c.Next {
						if c.Kind != TableCell || c.Align != n.Aligns[i] {
							t.Errorf("%q: cell %d is %s, misaligned", src, i, c.Kind)
						}
						i++
					}
				}
			case TaskCheckBox:
				para := n.Parent
				if para.Parent.Kind != ListItem || para.FirstChild != n || para.Parent.FirstChild != para {
					t.Errorf("%q: a check box out of place", src)
				}
			case AutoLink:
				// CommonMark's own <…> autolink, in the text as parsed: a
				// NUL is U+FFFD before anything else reads it.
				if strings.Contains(strings.ReplaceAll(src, "\x00", "\uFFFD"), "<"+n.Text+">") {
					break
				}
				if !strings.Contains(n.Text, "://") && !strings.HasPrefix(n.Text, "www.") {
					t.Errorf("%q: link %q", src, n.Text)
				}
				if strings.ContainsAny(n.Text, " \t\n") {
					t.Errorf("%q: link %q", src, n.Text)
				}
			case Text, CodeSpan:
				if utf8.ValidString(src) && !utf8.ValidString(n.Text) {
					t.Errorf("%q: invalid text %q", src, n.Text)
				}
			}
		}
		walk(doc)
	})
}
