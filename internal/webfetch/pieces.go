package webfetch

// A large HTML page is converted to Markdown in pieces, so that the
// parsed tree of the whole page (about ten times the page's size) is
// never held at once: a 2 MB page peaks at a fraction of what one tree
// and its conversion take (TestFetch2MBPageMemory).
//
// The page is cut only between blocks at the top of its content: before
// the start tag of a block element (a heading, a paragraph, a list, a
// table, a code block...) when every element still open is html, body or
// a plain container (main, div, article, section...) — containers whose
// Markdown is their children's. The stack of open elements is followed
// as the HTML parser would in the common cases (a block's start closes
// an open p; an end tag closes what it encloses; void and self-closing
// elements never open); where a page defeats it (a stray end tag, an
// element never closed) a cut is only missed, or a block is split in
// two: the text is all there either way. Each piece is parsed as a
// document of its own (stray end tags are ignored) and converted alone;
// the pieces' Markdown is joined by a blank line.

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// pieceBytes is the least size of a piece: large enough that cuts are
// few, small enough that a piece's tree is a few MiB.
const pieceBytes = 128 << 10

// containers are the elements a cut may sit inside.
var containers = []string{"html", "body", "main", "div", "article", "section", "header", "footer", "nav", "aside", "center"}

// blocks are the elements a cut may come before.
var blocks = []string{
	"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul", "ol", "dl", "table", "blockquote", "hr",
	"figure", "details", "div", "section", "article", "header", "footer", "nav", "aside", "form", "fieldset", "address",
}

// voids never hold anything: their start tags open nothing.
var voids = []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen"}

// pieces returns the byte offsets where page may be cut, each piece at
// least size bytes (the last may be shorter); none for a page shorter
// than two pieces.
func pieces(page string, size int) []int {
	if len(page) < 2*size {
		return nil
	}
	z := html.NewTokenizer(strings.NewReader(page))
	var open []string
	var cuts []int
	offset, last := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return cuts
		}
		start := offset
		offset += len(z.Raw())
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if slices.Contains(blocks, tag) {
				if n := len(open); n > 0 && open[n-1] == "p" {
					open = open[:n-1] // a block's start closes an open p
				}
				if start-last >= size && len(page)-start >= size && onlyContainers(open) {
					cuts = append(cuts, start)
					last = start
				}
			}
			if !slices.Contains(voids, tag) {
				open = append(open, tag)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if i := lastIndex(open, string(name)); i >= 0 {
				open = open[:i]
			}
		}
	}
}

func onlyContainers(open []string) bool {
	for _, tag := range open {
		if !slices.Contains(containers, tag) {
			return false
		}
	}
	return true
}

func lastIndex(s []string, v string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// convertPieces converts page piece by piece with convert, joining the
// pieces' Markdown by a blank line.
func convertPieces(page string, cuts []int, convert func(piece string) ([]byte, error)) (string, error) {
	var out bytes.Buffer
	from := 0
	for i := 0; i <= len(cuts); i++ {
		to := len(page)
		if i < len(cuts) {
			to = cuts[i]
		}
		md, err := convert(page[from:to])
		if err != nil {
			return "", err
		}
		md = bytes.TrimSpace(md)
		if len(md) > 0 {
			if out.Len() > 0 {
				out.WriteString("\n\n")
			}
			out.Write(md)
		}
		from = to
	}
	return out.String(), nil
}
