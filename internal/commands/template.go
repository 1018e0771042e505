package commands

// The pure part: a file's text into a command, a path into a name, "/name
// args" into a name and arguments, and a template and arguments into the
// message.

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/termsafe"
)

// template is what a command file holds.
type template struct {
	description, hint, body string
}

// parseFile reads a command file: the front matter's description and
// argument-hint, and the body after it. ok is false for a file that is
// not text (a NUL byte or invalid UTF-8).
func parseFile(data []byte) (t template, ok bool) {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return template{}, false
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	body := text
	if fm, rest, found := cutFrontMatter(text); found {
		body = rest
		for line := range strings.SplitSeq(fm, "\n") {
			key, value, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(key)) {
			case "description":
				t.description = oneLine(unquote(value))
			case "argument-hint", "argument_hint":
				t.hint = oneLine(unquote(value))
			}
		}
	}
	t.body = strings.TrimRight(strings.TrimLeft(body, "\n"), " \t\n")
	if t.description == "" {
		t.description = firstLine(t.body)
	}
	return t, true
}

// cutFrontMatter splits "---\n…\n---\n" off the start of text.
func cutFrontMatter(text string) (fm, rest string, found bool) {
	first, after, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return "", text, false
	}
	for i := 0; i < len(after); {
		j := strings.IndexByte(after[i:], '\n')
		line, next := after[i:], len(after)
		if j >= 0 {
			line, next = after[i:i+j], i+j+1
		}
		if strings.TrimRight(line, " \t") == "---" {
			return after[:i], after[next:], true
		}
		i = next
	}
	return "", text, false
}

// unquote trims a front-matter value and the quotes around it.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v
}

// firstLine is the body's first non-empty line, a Markdown heading's
// marks removed, as a description.
func firstLine(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		if l := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); l != "" {
			return oneLine(l)
		}
	}
	return ""
}

// oneLine makes s a single line fit for the terminal: escape sequences
// and other control characters removed, white space collapsed, at most
// maxDescription runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(termsafe.Strip(ansi.Strip(s))), " ")
	if utf8.RuneCountInString(s) > maxDescription {
		r := []rune(s)
		s = string(r[:maxDescription-1]) + "…"
	}
	return s
}

// nameOf turns a file's path below its commands directory ("git/Commit
// Msg.md") into the command's name ("git:commit-msg"); "" when a part is
// left empty.
func nameOf(rel string) string {
	rel = strings.TrimSuffix(path.Clean(strings.ReplaceAll(rel, "\\", "/")), path.Ext(rel))
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = sanitise(p)
		if parts[i] == "" {
			return ""
		}
	}
	return strings.Join(parts, ":")
}

// sanitise lower-cases s and replaces each run of characters other than
// a-z, 0-9, "-" and "_" by one "-", trimmed from the ends.
func sanitise(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			if r == '-' {
				if dash {
					continue
				}
				dash = true
			} else {
				dash = false
			}
			b.WriteRune(r)
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// ValidName reports whether name could name a custom command: parts of
// a-z, 0-9, "-" and "_" joined by ":".
func ValidName(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	for p := range strings.SplitSeq(name, ":") {
		if p == "" || sanitise(p) != p {
			return false
		}
	}
	return true
}

// Invocation splits "/name args" into the lower-cased name and the
// arguments (everything after the name's white space, trimmed). ok is
// false when text does not start with "/" and a valid name.
func Invocation(text string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(text, "/")
	if !found {
		return "", "", false
	}
	name, args = rest, ""
	if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
		name, args = rest[:i], strings.TrimSpace(rest[i:])
	}
	name = strings.ToLower(name)
	if !ValidName(name) {
		return "", "", false
	}
	return name, args, true
}

// SplitArgs splits arguments as a shell would, simply: white space
// separates them; "double" or 'single' quotes keep one together (the
// quotes removed; \" inside double quotes is a quote).
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i < len(s) && (s[i] == '"' || s[i] == '\\') {
				cur.WriteByte(s[i])
				i++
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Expand fills a command's body: $ARGUMENTS becomes args as typed, $1 …
// $9 the positional arguments (argv; a missing one is empty). The
// substituted text is not expanded again. A body without any placeholder
// gets "ARGUMENTS: args" appended when args is not empty.
func Expand(body, args string, argv []string) string {
	var b strings.Builder
	b.Grow(len(body) + len(args))
	used := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '$' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		if strings.HasPrefix(body[i+1:], "ARGUMENTS") {
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
			continue
		}
		if d := body[i+1]; d >= '1' && d <= '9' {
			if n := int(d - '1'); n < len(argv) {
				b.WriteString(argv[n])
			}
			i++
			used = true
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	if !used && strings.TrimSpace(args) != "" {
		if out = strings.TrimRight(out, "\n"); out == "" {
			return args
		}
		out += "\n\nARGUMENTS: " + args
	}
	return out
}
