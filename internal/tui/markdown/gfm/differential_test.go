package gfm

import (
	"bytes"
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// The differential oracle: goldmark, a CommonMark parser with GFM's
// extensions that its own authors test against the spec, is imported by
// this test file only (it is not in the binary). The same document must
// render to the same normalised HTML from our tree (htmlrender_test.go)
// and from goldmark, or fall in one of the documented difference classes
// below.

// goldmarkGFM renders with goldmark, CommonMark plus its GFM extensions,
// raw HTML passed through as the spec's examples have it.
var goldmarkGFM = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))

func goldmarkHTML(src string) string {
	var b bytes.Buffer
	if err := goldmarkGFM.Convert([]byte(src), &b); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

// documentedDifference names the documented classes a difference
// between our rendering and goldmark's falls in, or "". Each class either
// rules the input out or maps both renderings to the same form; they add
// up, so a document may differ in several ways.
func documentedDifference(src, ours, theirs string) string {
	if !utf8.ValidString(src) {
		return "invalid UTF-8 (the specs' text is Unicode; the two read such bytes differently)"
	}
	if unknownNamedReference(src) {
		return "a named reference outside entities.go's subset stays text"
	}
	var classes []string
	for _, c := range differenceClasses {
		if !c.applies(src) {
			continue
		}
		classes = append(classes, c.name)
		if c.same == nil {
			return strings.Join(classes, "; ") // the input is ruled out
		}
		if ours, theirs = c.same(ours), c.same(theirs); ours == theirs {
			return strings.Join(classes, "; ")
		}
	}
	return ""
}

// differenceClasses are the documented differences: each maps a
// rendering to a form where the difference is gone, or (same nil) rules
// out the inputs it applies to. The ones named "goldmark …" are where
// goldmark departs from the specs (the spec tests hold ours).
var differenceClasses = []struct {
	name    string
	applies func(src string) bool
	same    func(html string) string
}{
	{"a bare e-mail address is not a link (goldmark links it)",
		func(src string) bool { return strings.Contains(src, "@") }, unwrapMailto},
	{"goldmark's bare URLs end and begin by other rules than GFM's extended autolinks",
		func(src string) bool { return strings.Contains(src, "://") || strings.Contains(src, "www.") },
		unwrapAutolinks},
	{"a backslash in a bare URL is the URL's (GFM reads the raw text, goldmark escapes first)",
		func(src string) bool {
			return (strings.Contains(src, "://") || strings.Contains(src, "www.")) && strings.Contains(src, "\\")
		}, nil},
	{"goldmark pairs tilde runs of different lengths as strikethrough (GFM only equal ones)",
		func(src string) bool { return strings.Contains(src, "~") },
		func(h string) string {
			return strings.NewReplacer("<del>", "", "</del>", "", "~", "").Replace(h)
		}},
	{"goldmark takes ASCII control characters (DEL too) in a link destination",
		func(src string) bool {
			return strings.ContainsFunc(src, func(r rune) bool {
				return r < ' ' && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
			})
		}, nil},
	{"goldmark starts a declaration's HTML block at <! and an upper-case letter only (CommonMark 0.29's rule)",
		func(src string) bool {
			for i := strings.Index(src, "<!"); i >= 0 && i+2 < len(src); i = strings.Index(src[i+2:], "<!") + i + 2 {
				if c := src[i+2]; c >= 'a' && c <= 'z' {
					return true
				}
				if strings.Index(src[i+2:], "<!") < 0 {
					break
				}
			}
			return false
		}, nil},
	{"goldmark takes a link destination (inline or defined) whose parentheses do not balance",
		func(src string) bool {
			if !strings.Contains(src, "]") {
				return false
			}
			for _, l := range strings.Split(src, "\n") {
				if strings.Count(l, "(") != strings.Count(l, ")") {
					return true
				}
			}
			return false
		}, nil},
	{"goldmark counts the columns of a tab in the indentation of containers otherwise",
		tabAfterMarker, nil},
	{"goldmark takes a lazy continuation line (in a quote or an item) for a delimiter row",
		func(src string) bool {
			if !strings.ContainsAny(src, ">-+*0123456789") {
				return false
			}
			for _, l := range strings.Split(src, "\n") {
				if strings.Contains(l, "-") && strings.Trim(l, "|:- \t\r") == "" {
					return true
				}
			}
			return false
		}, nil},
	{"goldmark keeps the indentation of a blank line in an indented fence",
		func(src string) bool {
			for _, l := range strings.Split(src, "\n") {
				t := strings.TrimLeft(l, " >")
				if len(t) < len(l) && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
					return true
				}
			}
			return false
		}, nil},
	{"goldmark takes \"</\" and white space before a name for a closing tag",
		func(src string) bool { return strings.Contains(src, "</ ") || strings.Contains(src, "</\t") }, nil},
	{"goldmark ends an info string's first word at a space only, not a tab",
		func(src string) bool { return strings.Contains(src, "\t") }, cutLanguageAtTab},
	{"goldmark reads an escaped backslash before a backslash hard break otherwise",
		func(src string) bool { return strings.Contains(src, "\\\\\n") }, nil},
	{"goldmark does not take a link label that starts with a line ending",
		func(src string) bool { return strings.Contains(src, "[\n") }, nil},
	{"goldmark starts an HTML block at a closing </pre>, </script>, </style> or </textarea> alone",
		func(src string) bool {
			l := strings.ToLower(src)
			return strings.Contains(l, "</pre") || strings.Contains(l, "</script") || strings.Contains(l, "</style") || strings.Contains(l, "</textarea")
		}, nil},
	{"goldmark does not take a tab for white space in an HTML block's tag",
		func(src string) bool { return strings.Contains(src, "<") && strings.Contains(src, "\t") }, nil},
	{"goldmark takes an unescaped '<' inside a <…> link destination",
		func(src string) bool {
			for i := strings.IndexByte(src, '<'); i >= 0; {
				rest := src[i+1:]
				if end := strings.IndexAny(rest, ">\n"); strings.IndexByte(rest[:max(end, 0)], '<') >= 0 || end < 0 && strings.IndexByte(rest, '<') >= 0 {
					return true
				}
				k := strings.IndexByte(rest, '<')
				if k < 0 {
					break
				}
				i += 1 + k
			}
			return false
		}, nil},
	{"goldmark decodes a character reference after an escaped '&' in a link destination",
		func(src string) bool { return strings.Contains(src, "\\&") }, nil},
	{"goldmark makes a list loose at a blank line inside an item's fenced code",
		func(src string) bool {
			return (strings.Contains(src, "```") || strings.Contains(src, "~~~")) && emptyLine(src)
		}, nil},
	{"goldmark takes \"<?>\" for a processing instruction (its \"?>\" overlaps the \"<?\")",
		func(src string) bool { return strings.Contains(src, "<?>") }, nil},
	{"goldmark reads a definition whose destination is on the line after its label otherwise",
		func(src string) bool {
			for _, l := range strings.Split(src, "\n") {
				if strings.HasSuffix(strings.TrimRight(l, " \t"), "]:") {
					return true
				}
			}
			return false
		}, nil},
	{"goldmark keeps the indentation of a title's later lines (a paragraph's lines lose it)",
		func(src string) bool { return strings.Contains(src, "\n") }, trimTitleIndent},
	{"goldmark keeps a definition's title on the next line that text follows",
		func(src string) bool {
			lines := strings.Split(src, "\n")
			for i := 1; i < len(lines); i++ {
				next := strings.TrimLeft(lines[i], " \t>")
				if strings.Contains(lines[i-1], "]:") && next != "" && strings.IndexByte("\"'(", next[0]) >= 0 {
					return true
				}
			}
			return false
		}, nil},
	{"goldmark takes link labels over 999 characters",
		func(src string) bool {
			open := -1
			for i := 0; i < len(src); i++ {
				switch src[i] {
				case '[':
					open = i
				case ']':
					if open >= 0 && i-open > 999 {
						return true
					}
					open = -1
				}
			}
			return false
		}, nil},
	{"goldmark ends an item that starts with a blank line early (at a nested item, or a blank line)",
		emptyItemLine, nil},
	{"goldmark leaves the empty cell added to a short row unaligned",
		func(src string) bool { return strings.Contains(src, "|") },
		func(h string) string {
			for _, a := range []string{"left", "center", "right"} {
				h = strings.ReplaceAll(h, `<td align="`+a+`"></td>`, "<td></td>")
			}
			return h
		}},
}

// unknownNamedReference reports whether src has a named character
// reference HTML knows and entities.go does not.
func unknownNamedReference(src string) bool {
	for i := strings.IndexByte(src, '&'); i >= 0; {
		s := src[i:]
		if j := strings.IndexByte(s, ';'); j > 1 && j < 40 {
			if _, n := entity(s); n == 0 && html.UnescapeString(s[:j+1]) != s[:j+1] {
				return true
			}
		}
		k := strings.IndexByte(src[i+1:], '&')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// unwrapMailto replaces each link to "mailto:…" in normalised HTML by its
// text.
func unwrapMailto(h string) string {
	for {
		i := strings.Index(h, `<a href="mailto:`)
		if i < 0 {
			return h
		}
		j := strings.IndexByte(h[i:], '>')
		k := strings.Index(h[i:], "</a>")
		if j < 0 || k < j {
			return h
		}
		h = h[:i] + h[i+j+1:i+k] + h[i+k+len("</a>"):]
	}
}

// FuzzDifferential checks that our tree renders as goldmark renders the
// same document, but for the documented differences. Its seeds are the
// examples of both specs and FuzzParse's.
func FuzzDifferential(f *testing.F) {
	for _, path := range []string{"testdata/spec/commonmark-0.31.2.jsonl", "testdata/spec/gfm-0.29-extensions.jsonl"} {
		for _, e := range loadSpec(f, path) {
			f.Add(e.Markdown)
		}
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ours := normalizeHTML(renderHTML(Parse(src), false))
		// A lone CR is a line ending (CommonMark 2.1) and the end of the
		// input ends the last line; goldmark takes neither for one (it drops
		// a last line's fence info string), so it is given line feeds.
		lf := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
		if !strings.HasSuffix(lf, "\n") {
			lf += "\n"
		}
		theirs := normalizeHTML(goldmarkHTML(lf))
		if ours == theirs || documentedDifference(lf, ours, theirs) != "" {
			return
		}
		t.Errorf("%q:\nours:     %q\ngoldmark: %q", src, ours, theirs)
	})
}

// emptyItemLine reports whether a line of src is list markers alone (an
// item, maybe in items, with nothing on its first line).
func emptyItemLine(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		f := strings.Fields(strings.ReplaceAll(l, ">", " "))
		if len(f) == 0 {
			continue
		}
		all := true
		for _, m := range f {
			n := len(m)
			bullet := m == "-" || m == "+" || m == "*"
			ordered := n > 1 && (m[n-1] == '.' || m[n-1] == ')') && strings.Trim(m[:n-1], "0123456789") == ""
			all = all && (bullet || ordered)
		}
		if all {
			return true
		}
	}
	return false
}

// unwrapAutolinks replaces each link whose text is its destination (or
// the destination without "http://") by its text, in normalised HTML.
func unwrapAutolinks(h string) string {
	var b strings.Builder
	for {
		i := strings.Index(h, `<a href="`)
		if i < 0 {
			b.WriteString(h)
			return b.String()
		}
		j := strings.Index(h[i:], `">`)
		k := strings.Index(h[i:], "</a>")
		if j < 0 || k < j {
			b.WriteString(h)
			return b.String()
		}
		href, text := h[i+len(`<a href="`):i+j], h[i+j+2:i+k]
		b.WriteString(h[:i])
		if href == text || href == "http://"+text || encodeURL(html.UnescapeString(text)) == html.UnescapeString(href) {
			b.WriteString(text)
		} else {
			b.WriteString(h[i : i+k+len("</a>")])
		}
		h = h[i+k+len("</a>"):]
	}
}

// tabAfterMarker reports whether src has containers (a line starting
// with a list marker or '>') and a tab in the indentation of a line, where
// the two count columns differently.
func tabAfterMarker(src string) bool {
	containers, tabs := false, false
	for _, l := range strings.Split(src, "\n") {
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case c == '\t':
				tabs = true
			case c == '-' || c == '+' || c == '*' || c == '.' || c == ')' || c == '>':
				containers = true
			case c == ' ' || c >= '0' && c <= '9':
			default:
				i = len(l)
			}
		}
	}
	return containers && tabs
}

// cutLanguageAtTab ends each code block's language class at a tab.
func cutLanguageAtTab(h string) string {
	const attr = `class="language-`
	var b strings.Builder
	for {
		i := strings.Index(h, attr)
		if i < 0 {
			b.WriteString(h)
			return b.String()
		}
		i += len(attr)
		j := strings.IndexByte(h[i:], '"')
		if j < 0 {
			b.WriteString(h)
			return b.String()
		}
		lang, _, _ := strings.Cut(h[i:i+j], "\t")
		b.WriteString(h[:i] + lang)
		h = h[i+j:]
	}
}

// emptyLine reports whether src has a blank line.
func emptyLine(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		if strings.Trim(l, " \t") == "" {
			return true
		}
	}
	return false
}

// trimTitleIndent drops the white space after the line endings of each
// title attribute.
func trimTitleIndent(h string) string {
	const attr = ` title="`
	var b strings.Builder
	for {
		i := strings.Index(h, attr)
		if i < 0 {
			b.WriteString(h)
			return b.String()
		}
		i += len(attr)
		j := strings.IndexByte(h[i:], '"')
		if j < 0 {
			b.WriteString(h)
			return b.String()
		}
		lines := strings.Split(h[i:i+j], "\n")
		for k := 1; k < len(lines); k++ {
			lines[k] = strings.TrimLeft(lines[k], " \t")
		}
		b.WriteString(h[:i] + strings.Join(lines, "\n"))
		h = h[i+j:]
	}
}
