package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxloop/agent/internal/safefile"
)

// Grep matches lines: a match never spans lines, ^ and $ match at line
// boundaries. Files are visited in lexical path order and scanned in
// parallel; the result is the same as a sequential scan (see search).

const (
	grepMaxLineBytes  = 500       // a matching line is cut here in the output
	grepInitialBuffer = 256 << 10 // per-worker read buffer
	grepMaxBuffer     = 16 << 20  // a longer line is scanned in pieces
)

type grepTool struct{}

type grepInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Include string `json:"include"`
}

func (grepTool) Name() string   { return "grep" }
func (grepTool) ReadOnly() bool { return true }

func (grepTool) Description() string {
	return `Search file contents with a regular expression (Go RE2 syntax: no lookaround or backreferences; (?i) for case-insensitive). Prints matching lines as "path:line: text".

- path: a directory to search recursively (default: the session's directory) or a single file.
- include: a glob filtering file names, e.g. "*.go", "*.{ts,tsx}", or "src/**/*.py" (a pattern with / matches the path below the searched directory).
- Skips .git, node_modules and what .gitignore ignores, and binary files.
- Shows at most 100 matching lines, each cut at 500 characters; if there are more, narrow the pattern, path or include.
- Matches are within one line.`
}

func (grepTool) Parameters() json.RawMessage { return grepParameters() }

// grepParameters is built once: every request carries it.
var grepParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "pattern", typ: "string", required: true, description: "The regular expression to search for."},
		param{name: "path", typ: "string", description: "Directory or file to search (default: the session's directory)."},
		param{name: "include", typ: "string", description: "Only search files matching this glob, e.g. \"*.go\"."},
	)
})

func (grepTool) title(env *Env, input json.RawMessage) string {
	var in grepInput
	if decodeInput(input, &in) != nil {
		return ""
	}
	title := "grep " + oneLine(in.Pattern, 60)
	if in.Path != "" {
		title += " in " + shownPath(env, in.Path)
	}
	if in.Include != "" {
		title += " (" + in.Include + ")"
	}
	return title
}

func (t grepTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in grepInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	title := t.title(env, call.Input)
	if in.Pattern == "" {
		return errorResult(title, "pattern is empty: give a regular expression to search for, e.g. \"func main\""), nil
	}
	re, err := regexp.Compile("(?m)" + in.Pattern)
	if err != nil {
		return errorResult(title, "invalid regular expression %q: %v (Go RE2 syntax: no lookaround or backreferences; escape literal characters like ( [ . with \\)", in.Pattern, unwrapRegexpError(err)), nil
	}
	if in.Include != "" && !doublestar.ValidatePattern(in.Include) {
		return errorResult(title, "invalid include glob %q", in.Include), nil
	}
	root := absPath(env.Dir, orDot(in.Path))
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(title, "%s", notFoundMessage(env.Dir, root)), nil
	case err != nil:
		return errorResult(title, "cannot search %s: %v", displayPath(env.Dir, root), err), nil
	case !info.IsDir() && !info.Mode().IsRegular():
		return errorResult(title, "%s is not a regular file (it is %s); grep searches regular files and directories", displayPath(env.Dir, root), safefile.Kind(info.Mode())), nil
	}

	lim := env.limits()
	lit, fold := requiredLiteral(in.Pattern)
	s := &grepSearch{re: re, lit: []byte(lit), fold: fold, limit: lim.GrepMaxMatches, include: in.Include}
	if lit == "" {
		s.set = requiredBytes(in.Pattern) // grepprefilter.go
	}
	if info.IsDir() {
		err = s.searchDir(ctx, root)
	} else {
		s.searchFile(root)
	}
	if err != nil {
		if ctx.Err() != nil {
			return errorResult(title, "grep was cancelled"), nil
		}
		return Result{}, fmt.Errorf("grep %s: %w", root, err)
	}
	return s.result(env, title, in.Pattern, root), nil
}

func orDot(p string) string {
	if strings.TrimSpace(p) == "" {
		return "."
	}
	return p
}

func unwrapRegexpError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: `%s`", se.Code, strings.TrimPrefix(se.Expr, "(?m)"))
	}
	return err.Error()
}

// requiredLiteral returns a literal every match must contain (the longest
// found, at least 3 bytes), or "". fold means the literal matches ignoring
// ASCII case, and is returned in lower case. Lines without it are never run
// through the regular expression.
func requiredLiteral(pattern string) (lit string, fold bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	l := literalIn(re.Simplify())
	if len(l.s) < 3 {
		return "", false
	}
	return l.s, l.fold
}

type literal struct {
	s    string
	fold bool
}

func (l literal) better(o literal) bool {
	return len(l.s) > len(o.s) || len(l.s) == len(o.s) && o.fold && !l.fold
}

func literalIn(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			// U+FFFD also matches an invalid byte: not a literal.
			return longestPiece(string(re.Rune), func(r rune) bool { return r == utf8.RuneError })
		}
		return foldLiteral(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return literalIn(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalIn(re.Sub[0])
		}
	case syntax.OpConcat:
		var best literal
		for _, sub := range re.Sub {
			if l := literalIn(sub); l.better(best) {
				best = l
			}
		}
		return best
	}
	return literal{}
}

// foldLiteral returns the longest piece of a case-insensitive literal that
// ASCII lower-casing finds exactly: ASCII only, and without k and s, which
// Unicode folding also matches to the Kelvin sign and the long s.
func foldLiteral(s string) literal {
	l := longestPiece(strings.ToLower(s), func(r rune) bool { return r >= 0x80 || r == 'k' || r == 's' })
	l.fold = true
	return l
}

// longestPiece returns the longest piece of s between runes cut says
// cannot be part of a literal.
func longestPiece(s string, cut func(rune) bool) literal {
	var best string
	for _, piece := range strings.FieldsFunc(s, cut) {
		if len(piece) > len(best) {
			best = piece
		}
	}
	return literal{s: best}
}

type grepMatch struct {
	line int
	text string
}

type grepFile struct {
	path    string
	matches []grepMatch
}

// grepSearch is one search. Files are numbered in walk order and handed to
// workers in that order; every file handed out is scanned completely (up
// to limit+1 matches). Handing out stops once limit matches are exceeded,
// so the scanned files always form a prefix of the walk order, and the
// first limit matches in that order are exactly those a sequential scan
// would find.
type grepSearch struct {
	re      *regexp.Regexp
	lit     []byte
	fold    bool     // lit is lower case; search a lower-cased copy
	set     *byteSet // without lit: bytes every match holds one of, or nil
	limit   int
	include string

	total   atomic.Int64 // matches found so far (capped per file)
	stop    atomic.Bool
	special atomic.Int64 // FIFOs, sockets and devices skipped, never opened

	mu    sync.Mutex
	files map[int]grepFile
	next  int // files handed out
}

type grepJob struct {
	index int
	path  string // absolute
	rel   string // relative to the root
}

func (s *grepSearch) searchDir(ctx context.Context, root string) error {
	s.files = map[int]grepFile{}
	rootFD := openGrepRoot(root) // grepread.go
	defer closeGrepRoot(rootFD)
	jobs := make(chan []grepJob, 4)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w grepWorker
			for batch := range jobs {
				for _, job := range batch {
					at := grepAt{dir: rootFD, rel: job.rel}
					if rootFD == atFDCWD {
						at.rel = job.path
					}
					if matches := s.scanFile(job.path, &w, &at); len(matches) > 0 {
						s.mu.Lock()
						s.files[job.index] = grepFile{path: job.path, matches: matches}
						s.mu.Unlock()
					}
				}
			}
		}()
	}
	var h grepHandout
	send := func(batch []grepJob) error {
		select {
		case jobs <- batch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := walkFiles(ctx, root, 0, func(path, rel string, d fs.DirEntry) error {
		if s.stop.Load() {
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // not followed, like ripgrep: a link may lead anywhere
		}
		if !d.Type().IsRegular() {
			s.special.Add(1) // a FIFO would block the open
			return nil
		}
		if s.include != "" && !includeMatches(s.include, rel, d.Name()) {
			return nil
		}
		if full := h.add(grepJob{index: s.next, path: path, rel: rel}); full != nil {
			if err := send(full); err != nil {
				return err
			}
		}
		s.next++
		return nil
	})
	if rest := h.flush(); err == nil && rest != nil && !s.stop.Load() {
		err = send(rest)
	} else if rest != nil {
		s.next -= len(rest) // never handed out: not scanned
	}
	close(jobs)
	wg.Wait()
	return err
}

func (s *grepSearch) searchFile(path string) {
	s.files = map[int]grepFile{}
	var w grepWorker
	if matches := s.scanFile(path, &w, nil); len(matches) > 0 {
		s.files[0] = grepFile{path: path, matches: matches}
	}
	s.next = 1
}

// includeMatches applies grep's include glob: against the base name, or
// the relative path when the glob has a slash.
func includeMatches(glob, rel, name string) bool {
	if strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, rel)
	}
	return doublestar.MatchUnvalidated(glob, name)
}

// grepAt is where a walked file is opened from: rel from the directory
// dir (grepread.go).
type grepAt struct {
	dir int
	rel string
}

// grepWorker holds one worker's reusable buffers.
type grepWorker struct {
	buf []byte // file chunks
	fd  grepFD // the file being read

	anchor foldAnchor // a case-insensitive literal's anchor
}

// scanFile returns the matching lines of one file (at most limit+1),
// reading it in line-aligned chunks through w's buffer. Binary files give
// none.
// A file the walk gave (walked: where grepFD.open finds it) is opened by
// grepread.go's rules, the path asked for (walked nil) by openRegular's.
func (s *grepSearch) scanFile(path string, w *grepWorker, walked *grepAt) []grepMatch {
	var f io.ReadCloser
	var err error
	if walked != nil {
		err = w.fd.open(walked.dir, walked.rel)
		f = &w.fd
	} else {
		f, _, err = openRegular(path)
	}
	if err != nil {
		if errors.Is(err, errNotRegular) {
			s.special.Add(1) // swapped in since the walk saw it
		}
		return nil
	}
	defer f.Close()
	var matches []grepMatch
	if w.buf == nil {
		w.buf = make([]byte, grepInitialBuffer)
	}
	b := w.buf
	n, lineBase, first := 0, 0, true
	for {
		k, err := io.ReadFull(f, b[n:])
		n += k
		eof := err != nil
		if first {
			first = false
			if bytes.IndexByte(b[:min(n, binarySniffBytes)], 0) >= 0 {
				break
			}
		}
		end := n
		if !eof {
			end = bytes.LastIndexByte(b[:n], '\n') + 1
			if end == 0 {
				if len(b) < grepMaxBuffer {
					grown := make([]byte, 2*len(b))
					copy(grown, b[:n])
					b = grown
					continue
				}
				end = n // one huge line: scanned in pieces
			}
		}
		matches = s.scanChunk(b[:end], lineBase, matches, w)
		lineBase += bytes.Count(b[:end], []byte{'\n'})
		n = copy(b, b[end:n])
		if eof || len(matches) > s.limit {
			break
		}
	}
	w.buf = b
	if len(matches) > s.limit+1 {
		matches = matches[:s.limit+1]
	}
	if len(matches) > 0 && s.total.Add(int64(len(matches))) > int64(s.limit) {
		s.stop.Store(true)
	}
	return matches
}

// scanChunk appends the matching lines of chunk (whole lines; lineBase is
// the 0-based number of its first line).
func (s *grepSearch) scanChunk(chunk []byte, lineBase int, matches []grepMatch, w *grepWorker) []grepMatch {
	var folded foldScan
	if len(s.lit) > 0 && s.fold {
		folded = newFoldScan(chunk, s.lit, w.anchor.pick(s.lit, chunk)) // grepanchor.go, grepprefilter.go
	}
	pos, counted, lineNo := 0, 0, lineBase
	for pos < len(chunk) && len(matches) <= s.limit {
		var at int
		verify := true
		if len(s.lit) > 0 && s.fold {
			if at = folded.index(pos); at < 0 {
				break
			}
		} else if len(s.lit) > 0 {
			i := bytes.Index(chunk[pos:], s.lit)
			if i < 0 {
				break
			}
			at = pos + i
		} else if s.set != nil {
			i := s.set.index(chunk[pos:])
			if i < 0 {
				break
			}
			at = pos + i
		} else {
			loc := s.re.FindIndex(chunk[pos:])
			if loc == nil {
				break
			}
			at = pos + loc[0]
			// A match inside one line needs no second look.
			verify = bytes.IndexByte(chunk[at:pos+loc[1]], '\n') >= 0
		}
		start := bytes.LastIndexByte(chunk[pos:at], '\n') + 1 + pos
		end := bytes.IndexByte(chunk[at:], '\n')
		if end < 0 {
			end = len(chunk)
		} else {
			end += at
		}
		if !verify || s.re.Match(chunk[start:end]) {
			lineNo += bytes.Count(chunk[counted:start], []byte{'\n'})
			counted = start
			matches = append(matches, grepMatch{line: lineNo + 1, text: cutLine(chunk[start:end], grepMaxLineBytes)})
		}
		pos = end + 1
	}
	return matches
}

// cutLine returns line without a trailing CR, cut at maxBytes on a rune
// boundary.
func cutLine(line []byte, maxBytes int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) <= maxBytes {
		return string(line)
	}
	cut := maxBytes
	for cut > 0 && line[cut]&0xc0 == 0x80 {
		cut--
	}
	return string(line[:cut]) + " …[line cut]"
}

func (s *grepSearch) result(env *Env, title, pattern, root string) Result {
	var out strings.Builder
	shownMatches, shownFiles := 0, 0
	for i := 0; i < s.next && shownMatches < s.limit; i++ {
		f, ok := s.files[i]
		if !ok {
			continue
		}
		shownFiles++
		name := displayPath(env.Dir, f.path)
		for _, m := range f.matches {
			if shownMatches == s.limit {
				break
			}
			fmt.Fprintf(&out, "%s:%d: %s\n", name, m.line, m.text)
			shownMatches++
		}
	}
	total := int(s.total.Load())
	more := total > shownMatches
	meta := map[string]any{"matches": shownMatches, "files": shownFiles, "truncated": more}
	if !more {
		meta["total_matches"] = total
	}
	skipped := ""
	if n := int(s.special.Load()); n > 0 {
		meta["skipped_special"] = n
		skipped = "\n" + skippedSpecialNote(n)
	}
	where := displayPath(env.Dir, root)
	if shownMatches == 0 {
		return Result{Output: fmt.Sprintf("No matches for %q in %s.", pattern, where) + skipped, Title: title, Metadata: meta}
	}
	var header string
	if more {
		header = fmt.Sprintf("Found more than %d matching lines; showing the first %d (in %d files, in path order). Narrow the search with a more specific pattern, path or include to see others.\n", s.limit, shownMatches, shownFiles)
	} else {
		header = fmt.Sprintf("Found %d matching lines in %d files:\n", shownMatches, shownFiles)
	}
	return Result{Output: header + out.String() + strings.TrimPrefix(skipped, "\n"), Title: title, Metadata: meta}
}

// skippedSpecialNote tells the model that n special files were left out.
func skippedSpecialNote(n int) string {
	return fmt.Sprintf("(skipped %d special files: named pipes, sockets or devices are not regular files and are never opened)", n)
}
