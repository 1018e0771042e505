// Package gitignore decides which paths git would ignore, so searches skip
// build output, dependencies and other noise the way developers expect.
//
// It follows gitignore(5): blank lines and # comments are skipped, trailing
// spaces trimmed unless escaped, ! negates, a trailing / matches directories
// only, a pattern with a / elsewhere is anchored to its file's directory
// (otherwise it matches a name at any depth), ** spans directories, and the
// last matching pattern wins. Files deeper in the tree take precedence over
// their parents, and .git/info/exclude sits below the root .gitignore. As in
// git, a path inside an ignored directory cannot be re-included: walkers do
// not descend into ignored directories. Global excludes (core.excludesFile)
// are not read. Globs are git's wildmatch: bracket expressions may hold
// POSIX classes ("[[:alpha:]]"), and a trailing "/**" matches what is
// inside a directory, not the directory. Patterns and names are read as
// UTF-8, where git compares bytes: with invalid UTF-8, two bytes git
// tells apart may match. oracle_test.go compares the matcher with `git
// check-ignore` on generated patterns and trees, and fuzzes the same.
package gitignore

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// Matcher holds the patterns of one ignore file, relative to its directory.
type Matcher struct {
	patterns []pattern
}

type pattern struct {
	glob     string // doublestar pattern (gitignore has no {a,b}: braces escaped)
	negate   bool
	dirOnly  bool
	anchored bool   // matched against the path from the file's directory, else the base name
	literal  bool   // glob has no special characters: compare strings
	suffix   string // for "*.ext"-like unanchored patterns: compare the end of the name
}

// Parse reads the patterns of an ignore file.
func Parse(content []byte) *Matcher {
	m := &Matcher{}
	for _, line := range bytes.Split(content, []byte("\n")) {
		if p, ok := parseLine(string(line)); ok {
			m.patterns = append(m.patterns, p)
		}
	}
	return m
}

// Load parses the ignore file at path; a missing or unreadable file, or one
// that is not a regular file (a FIFO would block the open: it is never
// opened), gives nil (no patterns).
func Load(path string) *Matcher {
	content, err := readRegular(path)
	if err != nil {
		return nil
	}
	m := Parse(content)
	if len(m.patterns) == 0 {
		return nil
	}
	return m
}

func parseLine(line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	var p pattern
	switch {
	case line[0] == '!':
		p.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" || strings.HasSuffix(line, "/") || strings.Contains(line, "//") {
		// git strips one trailing slash; a pattern still holding an
		// empty component ("a//", "a//b") matches no path.
		return pattern{}, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			return pattern{}, false
		}
	}
	line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
	line, ok := expandClasses(line)
	if !ok || !doublestar.ValidatePattern(line) {
		return pattern{}, false
	}
	if p.anchored && strings.HasSuffix(line, "/**") {
		// git's "dir/**" matches what is inside dir, not dir itself;
		// doublestar's matches dir too, its "dir/*/**" does not.
		line = strings.TrimSuffix(line, "/**") + "/*/**"
	}
	p.glob = line
	p.literal = !strings.ContainsAny(line, `*?[\`)
	if !p.anchored && strings.HasPrefix(line, "*") && !strings.ContainsAny(line[1:], `*?[\`) {
		p.suffix = line[1:]
	}
	return p, true
}

// trimTrailingSpaces removes trailing spaces not escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		if strings.HasSuffix(s, `\ `) {
			return s[:len(s)-2] + " "
		}
		s = s[:len(s)-1]
	}
	return s
}

// match reports whether the pattern decides rel (slash-separated, relative
// to the ignore file's directory) and, if so, whether rel is ignored.
func (m *Matcher) match(rel string, isDir bool) (decided, ignored bool) {
	base := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		base = rel[i+1:]
	}
	for i := len(m.patterns) - 1; i >= 0; i-- {
		p := &m.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.matches(rel, base) {
			return true, !p.negate
		}
	}
	return false, false
}

func (p *pattern) matches(rel, base string) bool {
	if !p.anchored {
		switch {
		case p.literal:
			return base == p.glob
		case p.suffix != "":
			return strings.HasSuffix(base, p.suffix)
		}
		return doublestar.MatchUnvalidated(p.glob, base)
	}
	if p.literal {
		return rel == p.glob
	}
	return doublestar.MatchUnvalidated(p.glob, rel)
}

// Stack is the chain of ignore files that apply at one point of a walk, the
// deepest last. A nil *Stack ignores nothing.
type Stack struct {
	parent *Stack
	dir    string // absolute, slash-separated directory of the file
	m      *Matcher
}

// Push returns the stack with the patterns of an ignore file in dir (an
// absolute path) on top. A nil m returns s unchanged.
func (s *Stack) Push(dir string, m *Matcher) *Stack {
	if m == nil {
		return s
	}
	return &Stack{parent: s, dir: filepath.ToSlash(filepath.Clean(dir)), m: m}
}

// Ignored reports whether the absolute path is ignored. Deeper files decide
// first; within a file the last matching pattern wins.
func (s *Stack) Ignored(path string, isDir bool) bool {
	path = filepath.ToSlash(path)
	for f := s; f != nil; f = f.parent {
		rel, ok := relativeTo(f.dir, path)
		if !ok {
			continue
		}
		if decided, ignored := f.m.match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}

func relativeTo(dir, path string) (string, bool) {
	if dir == "/" {
		return strings.TrimPrefix(path, "/"), path != "/"
	}
	if len(path) <= len(dir) || !strings.HasPrefix(path, dir) || path[len(dir)] != '/' {
		return "", false
	}
	return path[len(dir)+1:], true
}

// ForRoot returns the stack that applies to the directory root before its
// own .gitignore is read: when root lies in a git work tree, the
// .git/info/exclude and .gitignore files from the top of the work tree down
// to root's parent. The walker then pushes root's own .gitignore and those of
// the directories it enters.
func ForRoot(root string) *Stack {
	root = filepath.Clean(root)
	top := repoTop(root)
	if top == "" {
		return nil
	}
	s := (*Stack)(nil).Push(top, Load(filepath.Join(top, ".git", "info", "exclude")))
	if top == root {
		return s
	}
	rel, err := filepath.Rel(top, root)
	if err != nil {
		return s
	}
	dir := top
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		s = s.Push(dir, Load(filepath.Join(dir, ".gitignore")))
		dir = filepath.Join(dir, part)
	}
	// dir is now root's parent.
	return s.Push(dir, Load(filepath.Join(dir, ".gitignore")))
}

// repoTop returns the nearest directory at or above dir holding .git, or "".
func repoTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readRegular reads path if it is a regular file, without blocking on
// anything else: opened non-blocking, checked with fstat.
func readRegular(path string) ([]byte, error) {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(f)
}

// posixClasses are the character classes git's wildmatch knows inside a
// bracket expression ("[[:alpha:]_]"), as ranges doublestar knows.
var posixClasses = map[string]string{
	"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \t", "cntrl": "\x00-\x1f\x7f",
	"digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
	"punct": "!-/:-@\\[-`{-~", "space": " \t\n\v\f\r", "upper": "A-Z", "xdigit": "0-9a-fA-F",
}

// expandClasses rewrites the "[:name:]" classes in the bracket
// expressions of glob as ranges; ok is false for a class git does not
// know (git then matches nothing with the pattern).
func expandClasses(glob string) (string, bool) {
	if !strings.Contains(glob, "[:") {
		return glob, true
	}
	var b strings.Builder
	inBracket := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob):
			b.WriteString(glob[i : i+2])
			i++
			continue
		case !inBracket && c == '[':
			inBracket = true
			b.WriteByte(c)
			if i+1 < len(glob) && (glob[i+1] == '!' || glob[i+1] == '^') {
				b.WriteByte(glob[i+1])
				i++
			}
			continue
		case inBracket && c == ']':
			inBracket = false
		case inBracket && strings.HasPrefix(glob[i:], "[:"):
			end := strings.Index(glob[i+2:], ":]")
			if end < 0 {
				break
			}
			ranges, known := posixClasses[glob[i+2:i+2+end]]
			if !known {
				return "", false
			}
			b.WriteString(ranges)
			i += 2 + end + 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
