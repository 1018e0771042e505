// Package mention finds and completes @path mentions in what the user
// types. A mention is "@" at the start of the text or after white space,
// followed by a path (no white space); trailing sentence punctuation is
// not part of it. Parse is pure; the loop resolves mentions when a message
// is sent (not when it is typed or queued), attaching the file's content
// through the read tool or a directory's listing through ls.
//
// Index is the completion's list of the directory's files: built by one
// walk (gitignore-aware, as the search tools see the tree), cached, and
// refreshed in the background; Match ranks its paths against what follows
// the "@" without touching the disk.
package mention

import (
	"strings"
	"unicode"
)

// Mention is one @path in a text.
type Mention struct {
	// Path is what follows the @, as typed; a trailing "/" asks for a
	// directory listing.
	Path string
	// Start and End are the byte offsets of the mention, @ included.
	Start, End int
}

// Dir reports whether the mention names a directory (ends with "/").
func (m Mention) Dir() bool { return strings.HasSuffix(m.Path, "/") }

// trailing is punctuation that ends a sentence rather than a path.
const trailing = ".,;:!?)]}'\""

// Parse returns the mentions of text in order. exists, when not nil,
// decides the doubtful ones: a word like "@john" (no "/" and no ".") is a
// mention only if exists says the path is there, so that handles and
// e-mail-like words are left alone. Each path is returned once.
func Parse(text string, exists func(path string) bool) []Mention {
	var out []Mention
	seen := map[string]bool{}
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !isSpaceBefore(text, i)) {
			continue
		}
		j := i + 1
		for j < len(text) && !unicode.IsSpace(rune(text[j])) {
			j++
		}
		path := strings.TrimRight(text[i+1:j], trailing)
		if path == "" || path == "/" {
			continue
		}
		if !strings.ContainsAny(path, "/.") && (exists == nil || !exists(path)) {
			continue
		}
		end := i + 1 + len(path)
		if seen[path] {
			i = end - 1
			continue
		}
		seen[path] = true
		out = append(out, Mention{Path: path, Start: i, End: end})
		i = end - 1
	}
	return out
}

func isSpaceBefore(text string, i int) bool {
	c := text[i-1]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == '['
}

// Partial returns the mention being typed at the end of text (the path so
// far, possibly empty) and whether there is one: the last word starts
// with "@".
func Partial(text string) (string, bool) {
	i := strings.LastIndexAny(text, " \t\n([")
	word := text[i+1:]
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word[1:], true
}
