package gfm

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
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
}

// parserWithoutPruning returns the parser with the strikethrough's pruning
// of closing runs off.
func parserWithoutPruning() parser.Parser {
	escaped := parser.NewContextKey()
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(taskParser{}, 0),
			util.Prioritized(&strikeParser{state: parser.NewContextKey()}, 500),
			util.Prioritized(urlParser{}, 999))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{escaped: escaped}, 200))...),
		parser.WithASTTransformers(util.Prioritized(pipeTransformer{escaped: escaped}, 0)),
	)
}

// The pruning of closing tildes that have nothing to close changes no
// document.
func FuzzStrikePruning(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	with, without := NewParser(), parserWithoutPruning()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return // unpruned, some inputs are quadratic
		}
		if a, b := showWith(with, src), showWith(without, src); a != b {
			t.Errorf("%q:\npruned   %s\nunpruned %s", src, a, b)
		}
	})
}

// FuzzParse checks the documents' shape on any input: no panic, every
// table row as wide as the table, every cell aligned as its column, check
// boxes only at the start of an item's first paragraph, bare URLs that
// start with a scheme or "www." and hold no blank, and every segment
// within the source.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, src string) {
		s := []byte(src)
		doc := p.Parse(text.NewReader(s))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			if n.Type() == ast.TypeBlock {
				for i := 0; i < n.Lines().Len(); i++ {
					if seg := n.Lines().At(i); seg.Start < 0 || seg.Stop > len(s) || seg.Start > seg.Stop {
						t.Fatalf("%q: %s has segment %v", src, n.Kind(), seg)
					}
				}
			}
			switch n := n.(type) {
			case *Table:
				for row := n.FirstChild(); row != nil; row = row.NextSibling() {
					if row.ChildCount() != len(n.Alignments) {
						t.Errorf("%q: a row of %d cells in a table of %d columns", src, row.ChildCount(), len(n.Alignments))
					}
					i := 0
					for c := row.FirstChild(); c != nil; c = c.NextSibling() {
						if cell, ok := c.(*TableCell); !ok || cell.Alignment != n.Alignments[i] {
							t.Errorf("%q: cell %d is %T, misaligned", src, i, c)
						}
						i++
					}
				}
			case *TaskCheckBox:
				para := n.Parent()
				if _, ok := para.Parent().(*ast.ListItem); !ok || para.FirstChild() != n || para.Parent().FirstChild() != para {
					t.Errorf("%q: a check box out of place", src)
				}
			case *ast.AutoLink:
				label := string(n.Label(s))
				if strings.Contains(src, "<"+label+">") {
					break // CommonMark's own <…> autolink
				}
				if n.AutoLinkType != ast.AutoLinkURL || !strings.Contains(label, "://") && !strings.HasPrefix(label, "www.") {
					t.Errorf("%q: link %q", src, label)
				}
				if strings.ContainsAny(label, " \t\n") || !utf8.ValidString(string(n.URL(s))) && utf8.ValidString(src) {
					t.Errorf("%q: link %q", src, label)
				}
			}
			return ast.WalkContinue, nil
		})
	})
}
