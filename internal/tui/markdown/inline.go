package markdown

import (
	"strings"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/markdown/gfm"
)

// inlines turns the inline content of a block into atoms for wrapping.
func (r *renderer) inlines(n *gfm.Node, st style) []atom {
	var z atomizer
	r.inlineInto(&z, n, st, "")
	return z.done()
}

// inlineInto adds the inline children of n, in style st, inside the
// hyperlink link ("" outside links).
func (r *renderer) inlineInto(z *atomizer, n *gfm.Node, st style, link string) {
	for c := n.FirstChild; c != nil; c = c.Next {
		r.inline(z, c, st, link)
	}
}

func (r *renderer) inline(z *atomizer, n *gfm.Node, st style, link string) {
	switch n.Kind {
	case gfm.Text:
		z.text(clean(n.Text), st, link)
	case gfm.SoftBreak:
		z.text(" ", st, link)
	case gfm.HardBreak:
		z.hardBreak()
	case gfm.CodeSpan:
		z.text(clean(n.Text), st.merge(r.p.code), link)
	case gfm.Emphasis:
		e := r.p.emph
		if n.Level >= 2 {
			e = r.p.strong
		}
		r.inlineInto(z, n, st.merge(e), link)
	case gfm.Strikethrough:
		r.inlineInto(z, n, st.merge(r.p.strike), link)
	case gfm.Link:
		dest := clean(n.Dest)
		href := hyperlink(dest)
		r.inlineInto(z, n, st.merge(r.p.link), href)
		label := plainText(n)
		if dest != "" && dest != label && "mailto:"+label != dest && !strings.HasPrefix(dest, "#") {
			r.url(z, dest, st, href)
		}
	case gfm.AutoLink:
		z.text(clean(n.Text), st.merge(r.p.link), hyperlink(clean(n.Dest)))
	case gfm.Image:
		z.text("[image: "+plainText(n)+"]", st.merge(r.p.image), "")
		if dest := clean(n.Dest); dest != "" {
			r.url(z, dest, st, hyperlink(dest))
		}
	case gfm.RawHTML:
		z.text(clean(n.Text), st.merge(r.p.html), link)
	case gfm.TaskCheckBox:
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
func plainText(n *gfm.Node) string {
	var b strings.Builder
	var walk func(*gfm.Node)
	walk = func(n *gfm.Node) {
		for c := n.FirstChild; c != nil; c = c.Next {
			switch c.Kind {
			case gfm.Text, gfm.CodeSpan:
				b.WriteString(c.Text)
			case gfm.SoftBreak, gfm.HardBreak:
				b.WriteByte(' ')
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
