package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/safefile"
)

type readTool struct{}

type readInput struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (readTool) Name() string   { return "read" }
func (readTool) ReadOnly() bool { return true }

func (readTool) Description() string {
	return `Read a text file, with line numbers (cat -n style: the number, a tab, the line).

- path is relative to the session's directory (absolute paths work too).
- Returns at most 2000 lines and 50 KB per call, lines cut at 2000 characters. When there is more, the output ends by saying which offset continues: call read again with offset (1-based first line) and limit (number of lines).
- Read a file before editing or overwriting it: edit and write refuse files not read in this session, or changed on disk since.
- An image file (PNG, JPEG, GIF or WebP, up to 20 MB) comes back as the image itself when you take images, as a description otherwise; other binary files are refused. Directories are refused (use ls).
- The line-number prefix is not part of the file: never copy it into edit's old_string.`
}

func (readTool) Parameters() json.RawMessage { return readParameters() }

// readParameters is built once: every request carries it.
var readParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "path", typ: "string", required: true, description: "The file to read."},
		param{name: "offset", typ: "integer", minimum: minimum(0), description: "First line to show, 1-based (default 1)."},
		param{name: "limit", typ: "integer", minimum: minimum(1), description: "Number of lines to show (default and maximum 2000)."},
	)
})

func (readTool) title(env *Env, input json.RawMessage) string {
	var in readInput
	if decodeInput(input, &in) != nil || in.Path == "" {
		return ""
	}
	title := "read " + shownPath(env, in.Path)
	if in.Offset > 1 {
		title += fmt.Sprintf(" (from line %d)", in.Offset)
	}
	return title
}

// binarySniffBytes is how much of a file is looked at to decide it is binary.
const binarySniffBytes = 8000

func (t readTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in readInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Path) == "" {
		return errorResult("read", "path is empty: give the file to read"), nil
	}
	title := t.title(env, call.Input)
	abs := absPath(env.Dir, in.Path)
	shown := displayPath(env.Dir, abs)
	// Never opened if not a regular file: a FIFO would block the open.
	f, info, err := openRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(title, "%s", notFoundMessage(env.Dir, abs)), nil
	case info != nil && info.IsDir():
		return errorResult(title, "%s is a directory, not a file: use ls to list it (or glob/grep to search it)", shown), nil
	case errors.Is(err, errNotRegular):
		return errorResult(title, "%s is not a regular file (it is %s); read shows regular text files only", shown, safefile.Kind(info.Mode())), nil
	case err != nil:
		return errorResult(title, "cannot read %s: %v", shown, err), nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64*1024)
	sniff, _ := br.Peek(binarySniffBytes)
	if _, err := attachments.Check(sniff); err == nil && len(sniff) > 0 {
		return readImage(env, br, abs, shown, title, info)
	}
	if isBinary(sniff) {
		return errorResult(title, "%s is a binary file (%s, %s); read shows text files only", shown, describeContent(sniff), truncate.FormatBytes(info.Size())), nil
	}

	if text, ok := editorText(ctx, env, abs); ok { // the editor's buffer, saved or not
		br = bufio.NewReaderSize(strings.NewReader(text), 64*1024)
	}
	lim := env.limits()
	offset := max(in.Offset, 1)
	limit := lim.ReadMaxLines
	if in.Limit > 0 && in.Limit < limit {
		limit = in.Limit
	}
	page, err := readLines(ctx, br, offset, limit, lim.ReadMaxLineLength, lim.MaxResultBytes-512)
	if err != nil {
		return errorResult(title, "cannot read %s: %v", shown, err), nil
	}
	if env.Files != nil {
		env.Files.Record(abs, info)
	}
	meta := map[string]any{"path": abs, "lines": page.shown, "total_lines": page.total, "offset": offset}

	if page.total == 0 {
		return Result{Output: fmt.Sprintf("(%s is empty)", shown), Title: title, Metadata: meta}, nil
	}
	if page.shown == 0 {
		return Result{
			Output:   fmt.Sprintf("offset %d is past the end of %s, which has %d lines; use an offset between 1 and %d", offset, shown, page.total, page.total),
			Title:    title,
			Metadata: meta,
			IsError:  true,
		}, nil
	}
	out := page.text.String()
	last := offset + page.shown - 1
	var notes []string
	if last < page.total {
		why := ""
		if page.byteCapped {
			why = fmt.Sprintf(" (output capped at %s)", truncate.FormatBytes(int64(lim.MaxResultBytes)))
		}
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d%s. Use offset=%d to read more.", offset, last, page.total, why, last+1))
	}
	if page.longLines > 0 {
		notes = append(notes, fmt.Sprintf("%d long line(s) were cut at %d characters.", page.longLines, lim.ReadMaxLineLength))
	}
	if len(notes) > 0 {
		out += "\n(" + strings.Join(notes, " ") + ")"
		meta["truncated"] = true
	}
	return Result{Output: out, Title: title, Metadata: meta}, nil
}

// readPage is the window of a file read returns.
type readPage struct {
	text       bytes.Buffer
	shown      int  // lines in text
	total      int  // lines in the file
	longLines  int  // lines cut at the maximum length
	byteCapped bool // stopped early to stay within the byte budget
}

// readLines numbers lines offset..offset+limit-1 of r into a page, cutting
// long lines and stopping before the text exceeds maxBytes; it then counts
// the remaining lines. Memory stays bounded by the page whatever the file.
func readLines(ctx context.Context, r *bufio.Reader, offset, limit, maxLineLen, maxBytes int) (*readPage, error) {
	p := &readPage{}
	lineNo := 0
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			inWindow := lineNo+1 >= offset
			if inWindow && len(line) < maxLineLen*utf8.UTFMax {
				line = append(line, chunk...)
			}
			if chunk[len(chunk)-1] == '\n' || err == io.EOF {
				lineNo++
				if inWindow {
					if !p.addLine(lineNo, line, maxLineLen, maxBytes) {
						p.byteCapped = true
						n, err := countLines(ctx, r)
						p.total = lineNo + n
						return p, err
					}
					if p.shown == limit {
						n, err := countLines(ctx, r)
						p.total = lineNo + n
						return p, err
					}
				}
				line = line[:0]
				if lineNo%4096 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	p.total = lineNo
	return p, nil
}

// countLines counts the lines left in r (a last line without a newline
// counts).
func countLines(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 256*1024)
	n := 0
	var last byte = '\n'
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// addLine appends one numbered line; it reports false (adding nothing) when
// the line would take the text past maxBytes.
func (p *readPage) addLine(n int, line []byte, maxLineLen, maxBytes int) bool {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if utf8.RuneCount(line) > maxLineLen {
		cut, i := 0, 0
		for i < len(line) && cut < maxLineLen {
			_, size := utf8.DecodeRune(line[i:])
			i += size
			cut++
		}
		line = append(line[:i:i], " …[line cut]"...)
		p.longLines++
	}
	entry := fmt.Sprintf("%6d\t%s\n", n, line)
	if p.text.Len()+len(entry) > maxBytes && p.shown > 0 {
		return false
	}
	p.text.WriteString(entry)
	p.shown++
	return true
}

// isBinary reports whether the start of a file looks binary: a NUL byte, or
// many control characters that text does not use.
func isBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctrl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\b' && c != 0x1b {
			ctrl++
		}
	}
	return ctrl*10 > len(b)
}

// describeContent names a binary file's type from its first bytes.
func describeContent(b []byte) string {
	t := http.DetectContentType(b)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	if t == "application/octet-stream" {
		return "binary data"
	}
	return t
}

// notFoundMessage says a path does not exist and suggests similar names in
// its directory (or says the directory is missing too).
func notFoundMessage(dir, abs string) string {
	shown := displayPath(dir, abs)
	parent := filepath.Dir(abs)
	entries, err := os.ReadDir(parent)
	if err != nil {
		// Find the deepest existing ancestor to point at.
		anc := parent
		for {
			if info, err := os.Stat(anc); err == nil && info.IsDir() {
				break
			}
			next := filepath.Dir(anc)
			if next == anc {
				break
			}
			anc = next
		}
		return fmt.Sprintf("%s does not exist: the directory %s does not exist either (the nearest existing one is %s; use ls or glob to look around)",
			shown, displayPath(dir, parent), displayPath(dir, anc))
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	similar := similarNames(filepath.Base(abs), names, 5)
	if len(similar) == 0 {
		return fmt.Sprintf("%s does not exist (use ls or glob to find the file)", shown)
	}
	for i, s := range similar {
		similar[i] = displayPath(dir, filepath.Join(parent, s))
		if strings.HasSuffix(s, "/") {
			similar[i] += "/"
		}
	}
	return fmt.Sprintf("%s does not exist. Did you mean: %s?", shown, strings.Join(similar, ", "))
}

// similarNames returns up to n names close to want: the same name in another
// case, another extension, a common prefix or a small edit distance.
func similarNames(want string, names []string, n int) []string {
	type scored struct {
		name  string
		score int
	}
	lw := strings.ToLower(want)
	stem := strings.TrimSuffix(lw, filepath.Ext(lw))
	var found []scored
	for _, name := range names {
		ln := strings.ToLower(strings.TrimSuffix(name, "/"))
		score := -1
		switch d := editDistance(lw, ln); {
		case ln == lw:
			score = 0
		case strings.TrimSuffix(ln, filepath.Ext(ln)) == stem:
			score = 1
		case d <= max(2, len(lw)/4):
			score = 1 + d
		case len(stem) >= 3 && strings.Contains(ln, stem):
			score = 10
		}
		if score >= 0 {
			found = append(found, scored{name, score})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score < found[j].score
		}
		return found[i].name < found[j].name
	})
	out := make([]string, 0, n)
	for _, f := range found {
		if len(out) == n {
			break
		}
		out = append(out, f.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes), capped
// for long names.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
