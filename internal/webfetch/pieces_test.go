package webfetch

import (
	"context"
	"strings"
	"testing"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
)

// whole is the page's Markdown converted in one piece.
func whole(t *testing.T, page string) string {
	t.Helper()
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	md, err := conv.ConvertString(page, converter.WithDomain("https://example.com/docs/"))
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestPiecesConvertAsTheWhole: a large page converted in pieces gives the
// Markdown of the page converted at once, for well-formed pages and for
// pages that leave paragraphs and list items unclosed or close what was
// never open; a cut never falls inside a list, a table or a code block.
func TestPiecesConvertAsTheWhole(t *testing.T) {
	repeat := func(head, unit, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < 3*pieceBytes; i++ {
			b.WriteString(strings.ReplaceAll(unit, "#", string(rune('a'+i%26))))
		}
		b.WriteString(tail)
		return b.String()
	}
	pages := map[string]string{
		"docs":       docsPage(3 * pieceBytes),
		"unclosed p": repeat("<html><body><div>", "<h3>T#</h3><p>one # <b>bold</b><p>two #<ul><li>x#<li>y</ul>", "</div>"),
		"stray ends": repeat("<body>", "</span><p>text # </p></li></div><pre>code #\n\tindented</pre>", ""),
		"one list":   repeat("<body><ol>", "<li>item #</li><li><p>para #</p></li>", "</ol></body>"),
		"nested":     repeat("<body><main><article><section>", "<h2>H#</h2><p>p <a href=\"/x#\">link</a></p><table><tr><td>#</td></tr></table>", ""),
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			cuts := pieces(page, pieceBytes)
			got, err := toMarkdown(context.Background(), page, "https://example.com/docs/")
			if err != nil {
				t.Fatal(err)
			}
			if want := whole(t, page); got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("%d cuts; pieces differ from the whole at byte %d:\n got %q\nwant %q", len(cuts), i,
					got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
			}
			if name != "one list" && len(cuts) == 0 {
				t.Errorf("a %d-byte page was not cut", len(page))
			}
			if name == "one list" && len(cuts) != 0 {
				t.Errorf("cut inside a list at %v", cuts)
			}
		})
	}
}
