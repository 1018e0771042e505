package gitcmd

// configfile.go: the filter drivers' names without a git process. Output
// needs the names git's `config --name-only --get-regexp ^filter\.` would
// print; for the common repository (a .git directory, no includes) they
// are read here from the same files git reads, with a parser that mirrors
// git's own (config.c, git_parse_source). Anything this file does not
// mirror exactly — a .git file, an include, a worktree configuration, a
// byte or construct outside the subset below, a file that cannot be read —
// answers "unknown", and Output asks git as before. An unknown answer
// costs a process; a wrong one would run a repository's command, so every
// doubt is unknown.
//
// The files are read by the tools' rules (internal/safefile). A
// repository's own .git/config that is a link out of .git, a FIFO, a
// device or over maxConfigFile is no doubt but a refusal: git would block
// on it or read it without end, so Output runs nothing there and says why
// (RepoConfigError).

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/safefile"
)

// maxConfigFile bounds a configuration file read here; a larger global
// one is left to git, a larger repository one refused (RepoConfigError).
const maxConfigFile = 1 << 20

// knownFilterKeys returns the keys of the configuration git run in dir
// with env would see that start with "filter." (in git's order, one a
// line, as `git config --name-only --get-regexp ^filter\.` prints them),
// or ok false when it cannot be sure.
func knownFilterKeys(dir string, env []string) (keys string, ok bool) {
	keys, ok, err := filterKeys(context.Background(), dir, env)
	return keys, ok && err == nil
}

// filterKeys is knownFilterKeys, with the refusal of a repository whose
// configuration git must not be run on: its .git/config is a link out of
// .git, a FIFO, a device or over maxConfigFile (safefile's rules; git
// would block on it, or read it without end). The files are read by those
// rules: a global one refused is left to git (ok false).
func filterKeys(ctx context.Context, dir string, env []string) (keys string, ok bool, err error) {
	files, repoFile, ok := configFiles(dir, env)
	if !ok {
		return "", false, nil
	}
	var b strings.Builder
	ok = true
	for _, path := range files {
		// Each file is kept to its own directory: .git for the
		// repository's, the home or XDG directory for the global ones.
		data, err := safefile.Read(ctx, path, filepath.Dir(path), maxConfigFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue // git reads only the files that exist
		}
		if err != nil && path == repoFile && safefile.Refused(err) {
			return "", false, &RepoConfigError{Warning: safefile.Warning(path, err)}
		}
		if err != nil || !ok {
			ok = false
			continue
		}
		names, known := configKeys(data)
		if !known {
			ok = false
			continue
		}
		for _, name := range names {
			if strings.HasPrefix(name, "filter.") {
				b.WriteString(name)
				b.WriteByte('\n')
			}
		}
	}
	if !ok {
		return "", false, nil
	}
	return b.String(), true, nil
}

// RepoConfigError is the error of a command not run because of the
// repository's configuration file (filterKeys).
type RepoConfigError struct {
	// Warning names the file and why, in one line (safefile.Warning).
	Warning string
}

func (e *RepoConfigError) Error() string { return "git is not run on this repository: " + e.Warning }

// configFiles returns the files git reads for its configuration in dir,
// in its order: the global ones, then the repository's (when dir is in
// one), or ok false when env or the repository's layout is one this file
// does not follow. env is what git gets: GIT_CONFIG_NOSYSTEM=1 must be
// there and no other variable that moves the configuration or the
// repository (GIT_DIR, GIT_CONFIG_GLOBAL, GIT_CONFIG_COUNT, …).
//
// repoFile is the repository's own file (the last of files), "" outside
// a repository.
func configFiles(dir string, env []string) (files []string, repoFile string, ok bool) {
	var home, xdg string
	nosystem := false
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME":
			home = value
		case name == "XDG_CONFIG_HOME":
			xdg = value
		case name == "GIT_CONFIG_NOSYSTEM":
			nosystem = value == "1"
		case name == "GIT_TERMINAL_PROMPT", name == "GIT_PAGER", name == "GIT_OPTIONAL_LOCKS":
		case strings.HasPrefix(name, "GIT_"):
			return nil, "", false
		}
	}
	if !nosystem || !filepath.IsAbs(home) {
		return nil, "", false
	}
	// git_global_config: $XDG_CONFIG_HOME/git/config (or
	// ~/.config/git/config), then ~/.gitconfig.
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	} else if !filepath.IsAbs(xdg) {
		return nil, "", false
	}
	files = []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
	gitDir, ok := discoverGitDir(dir)
	if !ok {
		return nil, "", false
	}
	if gitDir != "" {
		repoFile = filepath.Join(gitDir, "config")
		files = append(files, repoFile)
	}
	return files, repoFile, true
}

// validHead reports whether a HEAD file's first bytes are ones git's
// validate_headref accepts for sure: "ref:", blanks, "refs/…", or a
// detached HEAD's 40 hexadecimal digits.
func validHead(data []byte) bool {
	if len(data) > 255 {
		data = data[:255]
	}
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		rest = bytes.TrimLeft(rest, " \t\n\r")
		if bytes.HasPrefix(rest, []byte("refs/")) {
			return true
		}
	}
	if len(data) < 40 {
		return false
	}
	for _, c := range data[:40] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// configKeys returns the full names of the variables in a git
// configuration file, in order, as git's parser names them (section and
// variable lower-cased, a quoted subsection verbatim), or ok false when
// the file has anything not mirrored here exactly or that makes git read
// another file: see configEntries, plus an include or includeIf section
// and extensions.worktreeConfig.
func configKeys(data []byte) (keys []string, ok bool) {
	entries, includes, ok := configEntries(data)
	if !ok || includes {
		return nil, false
	}
	for _, e := range entries {
		if e.name == "extensions.worktreeconfig" {
			return nil, false
		}
		keys = append(keys, e.name)
	}
	return keys, true
}

// configEntry is one variable of a configuration file: its full name
// (see configKeys) and its value as git's parse_value reads it (quotes
// removed, escapes and continuations applied, blanks outside quotes
// collapsed and trimmed); a variable without "=" has the value "".
type configEntry struct {
	name, value string
}

// configEntries returns the variables of a git configuration file in
// order, and whether it has an include or includeIf section (whose files
// are not read here), or ok false when the file has anything not mirrored
// here exactly: a carriage return, a NUL, a byte-order mark, a backslash
// in a subsection, a variable before any section, or a syntax error (git
// would fail on it, and is left to say so).
func configEntries(data []byte) (entries []configEntry, includes, ok bool) {
	if bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, false, false
	}
	p := &configParser{data: data}
	var section []byte // the current section's name and a dot, "" before the first
	comment := false
	for {
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return entries, includes, true
			}
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			name, ok := p.sectionName()
			if !ok || len(name) == 0 {
				return nil, false, false
			}
			base, _, _ := bytes.Cut(name, []byte("."))
			if string(base) == "include" || string(base) == "includeif" {
				includes = true
			}
			section = append(name, '.')
		case isAlpha(c):
			if len(section) == 0 {
				return nil, false, false
			}
			name, value, ok := p.variable(append(append([]byte{}, section...), lower(c)))
			if !ok {
				return nil, false, false
			}
			entries = append(entries, configEntry{name, value})
		default:
			return nil, false, false
		}
	}
}

// configParser reads a configuration file a byte at a time as git's
// get_next_char does (no carriage returns: configKeys refuses them): the
// end of the file reads as a newline, with eof set.
type configParser struct {
	data []byte
	pos  int
	eof  bool
}

func (p *configParser) next() byte {
	if p.pos >= len(p.data) {
		p.eof = true
		return '\n'
	}
	c := p.data[p.pos]
	p.pos++
	return c
}

// sectionName reads a section header after its '[' (get_base_var):
// [name] or [name.legacy], lower-cased, or [name "subsection"] with the
// subsection verbatim.
func (p *configParser) sectionName() ([]byte, bool) {
	var name []byte
	for {
		c := p.next()
		switch {
		case p.eof:
			return nil, false
		case c == ']':
			return name, true
		case isSpace(c):
			return p.subsection(name, c)
		case !isKeyChar(c) && c != '.':
			return nil, false
		}
		name = append(name, lower(c))
	}
}

// subsection reads ` "subsection"]` after a section's name
// (get_extended_base_var); c is the blank that ended the name.
func (p *configParser) subsection(name []byte, c byte) ([]byte, bool) {
	for {
		if c == '\n' {
			return nil, false
		}
		if c = p.next(); !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return nil, false
	}
	name = append(name, '.')
	for {
		c := p.next()
		switch c {
		case '\n', '\\': // git drops a backslash (some versions refuse some): unknown
			return nil, false
		case '"':
			if p.next() != ']' {
				return nil, false
			}
			return name, true
		}
		name = append(name, c)
	}
}

// variable reads the rest of a variable's name and its value (get_value),
// returning the full name and the value.
func (p *configParser) variable(name []byte) (string, string, bool) {
	var c byte
	for {
		c = p.next()
		if p.eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	var value string
	if c != '\n' {
		var ok bool
		if c != '=' {
			return "", "", false
		}
		if value, ok = p.value(); !ok {
			return "", "", false
		}
	}
	return string(name), value, true
}

// value reads a value to the end of its line (parse_value): quotes,
// escapes, comments and backslash-newline continuations as git reads
// them; blanks outside quotes before the first character are dropped,
// and the ones after it are kept only when more of the value follows.
func (p *configParser) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	spaces := 0
	for {
		c := p.next()
		switch {
		case c == '\n':
			return string(v), !quote
		case comment:
			continue
		case isSpace(c) && !quote:
			if len(v) > 0 {
				spaces++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch e := p.next(); e {
			case '\n':
			case 't':
				v = append(v, '\t')
			case 'b':
				v = append(v, '\b')
			case 'n':
				v = append(v, '\n')
			case '\\', '"':
				v = append(v, e)
			default:
				return "", false // git refuses an unknown escape
			}
		case '"':
			quote = !quote
		default:
			v = append(v, c)
		}
	}
}

// The character classes of git's sane_ctype (ASCII only).
func isSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
