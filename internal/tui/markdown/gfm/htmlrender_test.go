package gfm

import (
	"fmt"
	"html"
	"strings"
)

// A test-only HTML renderer for the document tree, so that the tree can be
// compared with the spec's examples and with goldmark. It writes what
// cmark and cmark-gfm write (the spec's HTML conventions): a block opens
// on a line of its own, a tight list's paragraphs have no <p>, a
// destination is percent-encoded, text is escaped. With tagFilter, raw
// HTML of GFM's disallowed tags is shown as text (GFM's tagfilter).

type htmlRenderer struct {
	b         strings.Builder
	tagFilter bool
}

// renderHTML renders a document as the spec's examples show it.
func renderHTML(doc *Node, tagFilter bool) string {
	r := &htmlRenderer{tagFilter: tagFilter}
	r.blocks(doc)
	return r.b.String()
}

// cr starts a new line unless at the start of one.
func (r *htmlRenderer) cr() {
	if r.b.Len() > 0 && !strings.HasSuffix(r.b.String(), "\n") {
		r.b.WriteByte('\n')
	}
}

func (r *htmlRenderer) blocks(n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		r.block(c)
	}
}

// inTightList reports whether a paragraph is shown without <p>.
func inTightList(n *Node) bool {
	item := n.Parent
	return item != nil && item.Kind == ListItem && item.Parent != nil && item.Parent.Tight
}

func (r *htmlRenderer) block(n *Node) {
	switch n.Kind {
	case Paragraph:
		if inTightList(n) {
			r.inlines(n)
			return
		}
		r.cr()
		r.b.WriteString("<p>")
		r.inlines(n)
		r.b.WriteString("</p>\n")
	case Heading:
		r.cr()
		fmt.Fprintf(&r.b, "<h%d>", n.Level)
		r.inlines(n)
		fmt.Fprintf(&r.b, "</h%d>\n", n.Level)
	case ThematicBreak:
		r.cr()
		r.b.WriteString("<hr />\n")
	case CodeBlock:
		r.cr()
		r.b.WriteString("<pre><code")
		if info := strings.Fields(unescape(n.Info)); len(info) > 0 {
			r.b.WriteString(` class="language-` + escapeHTML(info[0]) + `"`)
		}
		r.b.WriteString(">" + escapeHTML(n.Text) + "</code></pre>\n")
	case HTMLBlock:
		r.cr()
		r.b.WriteString(r.raw(n.Text))
		r.cr()
	case Blockquote:
		r.cr()
		r.b.WriteString("<blockquote>\n")
		r.blocks(n)
		r.cr()
		r.b.WriteString("</blockquote>\n")
	case List:
		r.cr()
		tag := "ul"
		switch {
		case n.Ordered && n.Start != 1:
			tag = "ol"
			fmt.Fprintf(&r.b, "<ol start=\"%d\">\n", n.Start)
		case n.Ordered:
			tag = "ol"
			r.b.WriteString("<ol>\n")
		default:
			r.b.WriteString("<ul>\n")
		}
		r.blocks(n)
		r.b.WriteString("</" + tag + ">\n")
	case ListItem:
		r.cr()
		r.b.WriteString("<li>")
		r.blocks(n)
		r.b.WriteString("</li>\n")
	case Table:
		r.cr()
		r.b.WriteString("<table>\n<thead>\n")
		for row := n.FirstChild; row != nil; row = row.Next {
			if row.Kind == TableRow && row == n.FirstChild.Next {
				r.b.WriteString("<tbody>\n")
			}
			r.b.WriteString("<tr>\n")
			tag := "td"
			if row.Kind == TableHeader {
				tag = "th"
			}
			for cell := row.FirstChild; cell != nil; cell = cell.Next {
				r.b.WriteString("<" + tag)
				if cell.Align != AlignNone {
					r.b.WriteString(` align="` + cell.Align.String() + `"`)
				}
				r.b.WriteString(">")
				r.inlines(cell)
				r.b.WriteString("</" + tag + ">\n")
			}
			r.b.WriteString("</tr>\n")
			if row.Kind == TableHeader {
				r.b.WriteString("</thead>\n")
			}
		}
		if n.FirstChild != nil && n.FirstChild.Next != nil {
			r.b.WriteString("</tbody>\n")
		}
		r.b.WriteString("</table>\n")
	default:
		fmt.Fprintf(&r.b, "<!-- %s? -->", n.Kind)
	}
}

func (r *htmlRenderer) inlines(n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		r.inline(c)
	}
}

func (r *htmlRenderer) inline(n *Node) {
	switch n.Kind {
	case Text:
		r.b.WriteString(escapeHTML(n.Text))
	case SoftBreak:
		r.b.WriteString("\n")
	case HardBreak:
		r.b.WriteString("<br />\n")
	case CodeSpan:
		r.b.WriteString("<code>" + escapeHTML(n.Text) + "</code>")
	case Emphasis:
		tag := "em"
		if n.Level == 2 {
			tag = "strong"
		}
		r.b.WriteString("<" + tag + ">")
		r.inlines(n)
		r.b.WriteString("</" + tag + ">")
	case Strikethrough:
		r.b.WriteString("<del>")
		r.inlines(n)
		r.b.WriteString("</del>")
	case Link:
		r.b.WriteString(`<a href="` + escapeHTML(encodeURL(n.Dest)) + `"`)
		if n.Title != "" {
			r.b.WriteString(` title="` + escapeHTML(n.Title) + `"`)
		}
		r.b.WriteString(">")
		r.inlines(n)
		r.b.WriteString("</a>")
	case Image:
		r.b.WriteString(`<img src="` + escapeHTML(encodeURL(n.Dest)) + `" alt="` + escapeHTML(plainText(n)) + `"`)
		if n.Title != "" {
			r.b.WriteString(` title="` + escapeHTML(n.Title) + `"`)
		}
		r.b.WriteString(" />")
	case AutoLink:
		r.b.WriteString(`<a href="` + escapeHTML(encodeURL(n.Dest)) + `">` + escapeHTML(n.Text) + "</a>")
	case RawHTML:
		r.b.WriteString(r.raw(n.Text))
	case TaskCheckBox:
		if n.Checked {
			r.b.WriteString(`<input checked="" disabled="" type="checkbox"> `)
		} else {
			r.b.WriteString(`<input disabled="" type="checkbox"> `)
		}
	default:
		fmt.Fprintf(&r.b, "<!-- %s? -->", n.Kind)
	}
}

// plainText is the text of n's inlines, an image's alt text.
func plainText(n *Node) string {
	var b strings.Builder
	var walk func(*Node)
	walk = func(n *Node) {
		for c := n.FirstChild; c != nil; c = c.Next {
			switch c.Kind {
			case Text, CodeSpan, RawHTML:
				b.WriteString(c.Text)
			case AutoLink:
				b.WriteString(c.Text)
			case SoftBreak, HardBreak:
				b.WriteString("\n")
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// filteredTags are GFM's disallowed raw HTML tags.
var filteredTags = []string{"iframe", "noembed", "noframes", "plaintext", "script", "style", "textarea", "title", "xmp"}

// raw is raw HTML as written, with the '<' of disallowed tags escaped
// when the renderer filters tags.
func (r *htmlRenderer) raw(s string) string {
	if !r.tagFilter {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && filteredAt(s[i+1:]) {
			b.WriteString("&lt;")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func filteredAt(s string) bool {
	s = strings.TrimPrefix(s, "/")
	for _, t := range filteredTags {
		if len(s) >= len(t) && strings.EqualFold(s[:len(t)], t) {
			rest := s[len(t):]
			if rest == "" || rest[0] == '>' || rest[0] == '/' || isBlank(rest[0]) {
				return true
			}
		}
	}
	return false
}

// escapeHTML escapes &, <, > and " as cmark does.
func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// encodeURL percent-encodes a destination as the reference
// implementations do: what is not an ASCII letter, digit or one of
// ;/?:@&=+$,-_.!~*'()# is encoded, a '%' only when no two hex digits
// follow it.
func encodeURL(s string) string {
	const keep = ";/?:@&=+$,-_.!~*'()#"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// normalizeHTML makes two renderings comparable as the spec's own test
// runner does (test/normalize.py): white space around block tags goes,
// other runs of white space outside <pre> become one space, character
// references are decoded and text re-escaped the same way, "<br />" is
// "<br>", and attributes keep their order.
func normalizeHTML(s string) string {
	var out strings.Builder
	pre := 0
	lastBlock := true // at the start, as after a block tag
	pendingSpace := false
	for len(s) > 0 {
		if s[0] == '<' {
			end := tagEnd(s)
			if end > 0 {
				tag := s[:end]
				s = s[end:]
				name, closing := tagNameOf(tag)
				block := isNormBlock(name)
				if pendingSpace && !block && !lastBlock {
					out.WriteByte(' ')
				}
				pendingSpace = false
				switch {
				case name == "pre" && !closing:
					pre++
				case name == "pre" && closing && pre > 0:
					pre--
				}
				out.WriteString(normalizeTag(tag))
				lastBlock = block
				continue
			}
		}
		i := strings.IndexByte(s[1:], '<')
		if i < 0 {
			i = len(s)
		} else {
			i++
		}
		text := html.UnescapeString(s[:i])
		s = s[i:]
		if pre > 0 {
			out.WriteString(escapeHTML(text))
			lastBlock = false
			continue
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' })
		if len(fields) == 0 {
			pendingSpace = pendingSpace || text != ""
			continue
		}
		lead := strings.IndexAny(text[:1], " \t\n\r\f") == 0
		if (lead || pendingSpace) && !lastBlock {
			out.WriteByte(' ')
		}
		out.WriteString(escapeHTML(strings.Join(fields, " ")))
		last := text[len(text)-1]
		pendingSpace = last == ' ' || last == '\t' || last == '\n' || last == '\r' || last == '\f'
		lastBlock = false
	}
	return out.String()
}

// tagEnd is the length of the tag (or comment) at the start of s, or 0.
func tagEnd(s string) int {
	if strings.HasPrefix(s, "<!--") {
		if k := strings.Index(s[4:], "-->"); k >= 0 {
			return 4 + k + 3
		}
		return 0
	}
	if len(s) < 2 || !(isLetter(s[1]) || s[1] == '/' || s[1] == '!' || s[1] == '?') {
		return 0
	}
	q := byte(0)
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '>':
			return i + 1
		case c == '<':
			return 0
		}
	}
	return 0
}

func tagNameOf(tag string) (name string, closing bool) {
	t := strings.TrimPrefix(tag, "<")
	if strings.HasPrefix(t, "/") {
		closing = true
		t = t[1:]
	}
	n := tagName(t)
	return strings.ToLower(t[:n]), closing
}

func normalizeTag(tag string) string {
	// An empty title is no title (cmark writes none, goldmark title="").
	if strings.HasPrefix(tag, "<a ") || strings.HasPrefix(tag, "<img ") {
		tag = strings.Replace(tag, ` title=""`, "", 1)
	}
	// goldmark writes a column's alignment as a style.
	for _, a := range []string{"left", "center", "right"} {
		tag = strings.Replace(tag, ` style="text-align:`+a+`"`, ` align="`+a+`"`, 1)
	}
	switch tag {
	case "<br />", "<br/>":
		return "<br>"
	case "<hr />", "<hr/>":
		return "<hr>"
	}
	if strings.HasPrefix(tag, "<img ") || strings.HasPrefix(tag, "<input ") {
		tag = strings.TrimSuffix(strings.TrimSuffix(tag, ">"), "/")
		tag = strings.TrimRight(tag, " ") + ">"
	}
	return tag
}

// isNormBlock reports whether white space around the tag is not
// significant (the spec's normalize.py list, plus tables' and <br>, which
// a line ending always follows).
func isNormBlock(name string) bool {
	switch name {
	case "article", "header", "aside", "hgroup", "blockquote", "hr", "iframe", "body", "li", "map", "button",
		"object", "canvas", "ol", "caption", "output", "col", "p", "colgroup", "pre", "dd", "progress", "div",
		"section", "dl", "table", "td", "dt", "tbody", "embed", "textarea", "fieldset", "tfoot", "figcaption",
		"th", "figure", "thead", "footer", "tr", "form", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "video",
		"script", "style", "br":
		return true
	}
	return false
}
