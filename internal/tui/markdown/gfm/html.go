package gfm

import (
	"sort"
	"strings"
)

// Raw HTML: the seven start conditions of an HTML block, and inline tags,
// comments, processing instructions, declarations and CDATA sections.
// They are recognised to be shown as text, not interpreted.

// blockTags are the tag names of start condition 6, sorted.
var blockTags = [...]string{
	"address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col",
	"colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
	"footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr",
	"html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav", "noframes", "ol",
	"optgroup", "option", "p", "param", "search", "section", "summary", "table", "tbody", "td", "tfoot",
	"th", "thead", "title", "tr", "track", "ul",
}

func isBlockTag(name string) bool {
	name = strings.ToLower(name)
	i := sort.SearchStrings(blockTags[:], name)
	return i < len(blockTags) && blockTags[i] == name
}

// rawTags are the tags of start condition 1.
var rawTags = [...]string{"pre", "script", "style", "textarea"}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// tagName returns the length of the tag name at the start of s.
func tagName(s string) int {
	if len(s) == 0 || !isLetter(s[0]) {
		return 0
	}
	i := 1
	for i < len(s) && (isAlnum(s[i]) || s[i] == '-') {
		i++
	}
	return i
}

// htmlBlockStart returns the start condition (1–7) of the HTML block s
// opens, or 0; condition 7 only when it may interrupt a paragraph.
func htmlBlockStart(s string, seven bool) int {
	if len(s) < 2 || s[0] != '<' {
		return 0
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	case s[1] == '!' && len(s) > 2 && isLetter(s[2]):
		return 4
	}
	closing := s[1] == '/'
	k := 1
	if closing {
		k = 2
	}
	n := tagName(s[k:])
	if n == 0 {
		return 0
	}
	name := strings.ToLower(s[k : k+n])
	after := s[k+n:]
	if !closing {
		for _, t := range rawTags {
			if name == t && (after == "" || after[0] == ' ' || after[0] == '\t' || after[0] == '>') {
				return 1
			}
		}
	}
	if isBlockTag(name) && (after == "" || after[0] == ' ' || after[0] == '\t' || after[0] == '>' || strings.HasPrefix(after, "/>")) {
		return 6
	}
	if !seven {
		return 0
	}
	for _, t := range rawTags {
		if name == t {
			return 0
		}
	}
	var end int
	if closing {
		end = closingTag(s)
	} else {
		end = openTag(s)
	}
	if end > 0 && strings.Trim(s[end:], " \t") == "" {
		return 7
	}
	return 0
}

// htmlBlockEnds reports whether line ends an HTML block of start
// condition t (1 to 5).
func htmlBlockEnds(t int, line string) bool {
	switch t {
	case 1:
		l := strings.ToLower(line)
		for _, tag := range rawTags {
			if strings.Contains(l, "</"+tag+">") {
				return true
			}
		}
		return false
	case 2:
		return strings.Contains(line, "-->")
	case 3:
		return strings.Contains(line, "?>")
	case 4:
		return strings.Contains(line, ">")
	case 5:
		return strings.Contains(line, "]]>")
	}
	return false
}

// skipSpace skips white space (spaces, tabs, line endings) from i.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// openTag returns the length of the open tag at the start of s, or 0.
func openTag(s string) int {
	n := tagName(s[1:])
	if n == 0 {
		return 0
	}
	i := 1 + n
	for {
		j := skipSpace(s, i)
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		if j+1 < len(s) && s[j] == '/' && s[j+1] == '>' {
			return j + 2
		}
		if j == i {
			return 0 // an attribute needs white space before it
		}
		a := attribute(s, j)
		if a == 0 {
			return 0
		}
		i = a
	}
}

// attribute returns the end of the attribute starting at i, or 0.
func attribute(s string, i int) int {
	if i >= len(s) || !(isLetter(s[i]) || s[i] == '_' || s[i] == ':') {
		return 0
	}
	i++
	for i < len(s) && (isAlnum(s[i]) || strings.IndexByte("_.:-", s[i]) >= 0) {
		i++
	}
	j := skipSpace(s, i)
	if j >= len(s) || s[j] != '=' {
		return i
	}
	j = skipSpace(s, j+1)
	if j >= len(s) {
		return 0
	}
	switch q := s[j]; q {
	case '"', '\'':
		k := strings.IndexByte(s[j+1:], q)
		if k < 0 {
			return 0
		}
		return j + 1 + k + 1
	}
	k := j
	for k < len(s) && s[k] > ' ' && strings.IndexByte("\"'=<>`", s[k]) < 0 {
		k++
	}
	if k == j {
		return 0
	}
	return k
}

// closingTag returns the length of the closing tag at the start of s, or 0.
func closingTag(s string) int {
	if len(s) < 3 || s[1] != '/' {
		return 0
	}
	n := tagName(s[2:])
	if n == 0 {
		return 0
	}
	i := skipSpace(s, 2+n)
	if i < len(s) && s[i] == '>' {
		return i + 1
	}
	return 0
}
