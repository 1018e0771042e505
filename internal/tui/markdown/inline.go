package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"github.com/ctxloop/agent/internal/termsafe"
	gfm "github.com/ctxloop/agent/internal/tui/markdown/oldgfm"
)

// inlines turns the inline content of a block into atoms for wrapping.
func (r *renderer) inlines(n ast.Node, st style) []atom {
	var z atomizer
	r.inlineInto(&z, n, st, "")
	return z.done()
}

// inlineInto adds the inline children of n, in style st, inside the
// hyperlink link ("" outside links).
func (r *renderer) inlineInto(z *atomizer, n ast.Node, st style, link string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(z, c, st, link)
	}
}

func (r *renderer) inline(z *atomizer, n ast.Node, st style, link string) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			z.text(clean(string(v)), st, link)
		} else {
			z.text(unescape(v), st, link)
		}
		switch {
		case n.HardLineBreak():
			z.hardBreak()
		case n.SoftLineBreak():
			z.text(" ", st, link)
		}
	case *ast.String:
		z.text(clean(string(n.Value)), st, link)
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(r.src))
			}
		}
		code := strings.ReplaceAll(clean(b.String()), "\n", " ")
		z.text(code, st.merge(r.p.code), link)
	case *ast.Emphasis:
		e := r.p.emph
		if n.Level >= 2 {
			e = r.p.strong
		}
		r.inlineInto(z, n, st.merge(e), link)
	case *gfm.Strikethrough:
		r.inlineInto(z, n, st.merge(r.p.strike), link)
	case *ast.Link:
		dest := unescape(n.Destination)
		href := hyperlink(dest)
		r.inlineInto(z, n, st.merge(r.p.link), href)
		label := r.plainText(n)
		if dest != "" && dest != label && "mailto:"+label != dest && !strings.HasPrefix(dest, "#") {
			r.url(z, dest, st, href)
		}
	case *ast.AutoLink:
		u := clean(string(n.URL(r.src)))
		label := clean(string(n.Label(r.src)))
		z.text(label, st.merge(r.p.link), hyperlink(u))
	case *ast.Image:
		alt := r.plainText(n)
		z.text("[image: "+alt+"]", st.merge(r.p.image), "")
		if dest := unescape(n.Destination); dest != "" {
			r.url(z, dest, st, hyperlink(dest))
		}
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			b.Write(s.Value(r.src))
		}
		z.text(clean(b.String()), st.merge(r.p.html), link)
	case *gfm.TaskCheckBox:
		// Drawn by the list as the item's marker.
	default:
		r.inlineInto(z, n, st, link)
	}
}

// url adds a link's destination after its text, in parentheses.
func (r *renderer) url(z *atomizer, dest string, st style, href string) {
	z.text(" ", st, "")
	z.text("(", st, "")
	z.text(dest, st.merge(r.p.url), href)
	z.text(")", st, "")
}

// plainText is the text of a node's inline children, unstyled.
func (r *renderer) plainText(n ast.Node) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.WriteString(unescape(c.Segment.Value(r.src)))
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return clean(b.String())
}

// hyperlink returns the URL to put in an OSC 8 hyperlink, or "" when the
// URL is not one to hand to a terminal: only web and mail links, printable
// ASCII only (the sequence's own syntax excludes the rest).
func hyperlink(u string) string {
	l := strings.ToLower(u)
	if !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "mailto:") {
		return ""
	}
	if len(u) > 2048 {
		return ""
	}
	for i := 0; i < len(u); i++ {
		if u[i] <= ' ' || u[i] >= 0x7f {
			return ""
		}
	}
	return u
}

// clean removes control characters (tabs and newlines become spaces).
func clean(s string) string {
	s = termsafe.Strip(s)
	if strings.ContainsAny(s, "\t\n") {
		s = strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
	}
	return s
}

// unescape resolves backslash escapes and entity references the way an
// HTML renderer would, then cleans the result: "&#27;" must not become an
// escape character on the terminal.
func unescape(v []byte) string {
	if !strings.ContainsAny(string(v), `\&`) {
		return clean(string(v))
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]) {
			b.WriteByte(v[i+1])
			i++
			continue
		}
		if c == '&' {
			if s, n := entity(v[i:]); n > 0 {
				b.WriteString(s)
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return clean(b.String())
}

// entity decodes the entity reference at the start of v ("&amp;",
// "&#65;", "&#x41;"), returning its text and length, or n == 0.
func entity(v []byte) (string, int) {
	end := -1
	for i := 1; i < len(v) && i < 40; i++ {
		if v[i] == ';' {
			end = i
			break
		}
	}
	if end < 2 {
		return "", 0
	}
	name := string(v[1:end])
	if name[0] == '#' {
		var n uint64
		var err error
		if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
			n, err = strconv.ParseUint(name[2:], 16, 32)
		} else {
			n, err = strconv.ParseUint(name[1:], 10, 32)
		}
		if err != nil || len(name) > 9 {
			return "", 0
		}
		if n == 0 || n > utf8.MaxRune {
			return "\uFFFD", end + 1
		}
		return string(rune(n)), end + 1
	}
	if e, ok := util.LookUpHTML5EntityByName(name); ok {
		return string(e.Characters), end + 1
	}
	return "", 0
}
