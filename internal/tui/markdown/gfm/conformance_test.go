package gfm

import "testing"

// Regression tests for the differences from the specs that running their
// examples found (spec_test.go), each with the class of input around it.

type htmlCase struct{ name, src, want string }

func runHTMLCases(t *testing.T, cases []htmlCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := renderHTML(Parse(tt.src), false)
			if normalizeHTML(got) != normalizeHTML(tt.want) {
				t.Errorf("%q:\ngot  %q\nwant %q", tt.src, got, tt.want)
			}
		})
	}
}

// TestDelimiterRowOnlyWhereABlockMayStart: GFM finds a table's delimiter
// row where a block may start, so a line indented four columns or more,
// or a lazy continuation line, is paragraph text (CommonMark example 87:
// the setext-looking "    ---" was a one-column table and disappeared).
func TestDelimiterRowOnlyWhereABlockMayStart(t *testing.T) {
	runHTMLCases(t, []htmlCase{
		{"indented dashes", "Foo\n    ---\n", "<p>Foo\n---</p>\n"},
		{"indented piped row", "| a |\n    | - |\n", "<p>| a |\n| - |</p>\n"},
		{"indented in an item", "- | a | b |\n      | - | - |\n", "<ul>\n<li>| a | b |\n| - | - |</li>\n</ul>\n"},
		{"lazy in a quote", "> | a |\n| - |\n", "<blockquote>\n<p>| a |\n| - |</p>\n</blockquote>\n"},
		{"three columns of indent is a table", "| a |\n   | - |\n",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n"},
		{"in a quote, not lazy", "> | a |\n> | - |\n",
			"<blockquote>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n</blockquote>\n"},
		{"indented body rows stay rows", "| a |\n| - |\n    | b |\n",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n</tbody>\n</table>\n"},
		{"after a setext heading", "x\n===\n| a |\n    | - |\n", "<h1>x</h1>\n<p>| a |\n| - |</p>\n"},
	})
}

// TestListLooseAfterRemovedRefDefs: a blank line after an item's block is
// a blank line still when what follows it was only link reference
// definitions (CommonMark example 317 rendered tight).
func TestListLooseAfterRemovedRefDefs(t *testing.T) {
	runHTMLCases(t, []htmlCase{
		{"example 317", "- a\n- b\n\n  [ref]: /url\n- d\n",
			"<ul>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n</li>\n<li>\n<p>d</p>\n</li>\n</ul>\n"},
		{"after a nested list", "- a\n  - b\n\n  [r]: /u\n- c\n",
			"<ul>\n<li>\n<p>a</p>\n<ul>\n<li>b</li>\n</ul>\n</li>\n<li>\n<p>c</p>\n</li>\n</ul>\n"},
		{"in the last item, tight", "- a\n- b\n\n  [ref]: /url\n",
			"<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"},
		{"definitions first, then a blank: tight", "- [r]: /u\n\n  b\n- c\n",
			"<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n"},
		{"no blank: tight", "- a\n  [r]: /u\n- c\n", "<ul>\n<li>a\n[r]: /u</li>\n<li>c</li>\n</ul>\n"},
	})
}

// TestLinkLabelFullCaseFold: labels match under Unicode's full case
// folding, where one letter may fold to several (CommonMark example 540:
// "ẞ" and "SS" both fold to "ss").
func TestLinkLabelFullCaseFold(t *testing.T) {
	runHTMLCases(t, []htmlCase{
		{"example 540", "[ẞ]\n\n[SS]: /url\n", "<p><a href=\"/url\">ẞ</a></p>\n"},
		{"sharp s and ss", "[Straße]\n\n[STRASSE]: /u\n", "<p><a href=\"/u\">Straße</a></p>\n"},
		{"ligature", "[ﬁle]\n\n[FILE]: /u\n", "<p><a href=\"/u\">ﬁle</a></p>\n"},
		{"greek final sigma", "[ΣΑΣ]\n\n[σας]: /u\n", "<p><a href=\"/u\">ΣΑΣ</a></p>\n"},
		{"simple fold still", "[Foo Bar]\n\n[foo  BAR]: /u\n", "<p><a href=\"/u\">Foo Bar</a></p>\n"},
		{"different letters", "[ß]\n\n[s]: /u\n", "<p>[ß]</p>\n"},
	})
}

// TestTableEndsAtLazyLine: a table is not a paragraph, so a line that
// only a paragraph could take lazily ends it and the containers around
// it (GFM builds tables line by line; ours are made of finished
// paragraphs, so the paragraph must not take such a line either).
func TestTableEndsAtLazyLine(t *testing.T) {
	table := "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n"
	runHTMLCases(t, []htmlCase{
		{"after a quote's table", "> | a |\n> | - |\n| b |\n",
			"<blockquote>\n" + table + "</blockquote>\n<p>| b |</p>\n"},
		{"after an item's table", "- | a |\n  | - |\nb\n",
			"<ul>\n<li>\n" + table + "</li>\n</ul>\n<p>b</p>\n"},
		{"a paragraph's lazy line still", "> a\nb\n", "<blockquote>\n<p>a\nb</p>\n</blockquote>\n"},
		{"lazy before the delimiter row", "> | a |\n| - |\nc\n", "<blockquote>\n<p>| a |\n| - |\nc</p>\n</blockquote>\n"},
		{"after definitions, no table", "> [x]: /u\n> | - |\nc\n", "<blockquote>\n<p>| - |\nc</p>\n</blockquote>\n"},
	})
}
