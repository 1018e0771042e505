package webfetch

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// FuzzPiecesKeepTheText holds the cutting of a page (pieces) to the
// converter itself: with pieces as small as 32 bytes, the page's letters
// and digits come out of the pieces in the order the page converted at
// once gives them. Markdown between them may differ where a messy page
// defeats the cut (a block split in two, a formatting element the parser
// would carry on past an end tag: a link's target), the text may not.
func FuzzPiecesKeepTheText(f *testing.F) {
	for _, seed := range []string{
		"<html><body><div><h3>Ta</h3><p>one a <b>bold</b><p>two b<ul><li>xa<li>y</ul></div>",
		"<body></span><p>text a </p></li></div><pre>code a\n\tindented</pre><p>after</p>",
		"<body><ol><li>item a</li><li><p>para a</p></li></ol><p>b</p><p>c</p></body>",
		"<body><main><article><section><h2>Ha</h2><p>p <a href=\"/xa\">link</a></p><table><tr><td>a</td></tr></table><p>z</p>",
		"<p>one<p>two<script>var x = '<p>not a cut</p>';</script><p>three<style>p{}</style><p>four<!-- <p> --><p>five",
		"<div><p>a<textarea><p>b</textarea><p>c</div><p>d<br/><img src=x><hr><p>e",
	} {
		f.Add(seed)
	}
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	convert := func(piece string) ([]byte, error) {
		doc, err := html.Parse(strings.NewReader(piece))
		if err != nil {
			return nil, err
		}
		return conv.ConvertNode(doc, converter.WithDomain("https://example.com/"))
	}
	f.Fuzz(func(t *testing.T, page string) {
		if len(page) > 4096 {
			return
		}
		whole, err := convert(page)
		if err != nil {
			return
		}
		got, err := convertPieces(page, pieces(page, 32), convert)
		if err != nil {
			t.Fatalf("pieces failed where the whole converted: %v", err)
		}
		if a, b := alnum(string(whole)), alnum(got); a != b {
			t.Errorf("the pieces' text differs from the whole's\npage %q\nwhole %q\npieces %q", page, whole, got)
		}
	})
}

// linkTargets are Markdown links' destinations.
var linkTargets = regexp.MustCompile(`\]\([^)]*\)`)

// alnum is s's letters and digits, in order, but for links' targets.
func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, linkTargets.ReplaceAllString(s, "]"))
}
