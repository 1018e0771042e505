package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/safefile"
)

type editTool struct{}

type editInput struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (editTool) Name() string   { return "edit" }
func (editTool) ReadOnly() bool { return false }

func (editTool) Description() string {
	return `Replace an exact piece of text in a file.

- old_string must match the file exactly, whitespace and indentation included, and appear exactly once; add surrounding lines to make it unique, or set replace_all to replace every occurrence (e.g. renaming).
- Copy text from read's output without its line-number prefix (the number and the tab).
- The file must have been read in this session and not changed on disk since; otherwise read it first.
- Line endings are kept: in a file with CRLF endings, write old_string and new_string with plain newlines.
- An empty old_string creates a new file (or fills an empty one) with new_string.`
}

func (editTool) Parameters() json.RawMessage { return editParameters() }

// editParameters is built once: every request carries it.
var editParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "path", typ: "string", required: true, description: "The file to edit."},
		param{name: "old_string", typ: "string", required: true, description: "The exact text to replace."},
		param{name: "new_string", typ: "string", required: true, description: "The text to put in its place (must differ from old_string)."},
		param{name: "replace_all", typ: "boolean", description: "Replace every occurrence instead of exactly one (default false)."},
	)
})

func (editTool) title(env *Env, input json.RawMessage) string {
	var in editInput
	if decodeInput(input, &in) != nil || in.Path == "" {
		return ""
	}
	return "edit " + shownPath(env, in.Path)
}

func (t editTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in editInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Path) == "" {
		return errorResult("edit", "path is empty: give the file to edit"), nil
	}
	abs := absPath(env.Dir, in.Path)
	shown := displayPath(env.Dir, abs)
	title := "edit " + shown
	if in.OldString == in.NewString {
		return errorResult(title, "old_string and new_string are identical: there is nothing to change"), nil
	}

	// Where the path really leads, resolved again now (see write).
	real, err := resolveLinks(abs)
	if err != nil {
		return errorResult(title, "cannot edit %s: %v", shown, err), nil
	}
	info, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if in.OldString != "" {
			return errorResult(title, "%s", notFoundMessage(env.Dir, abs)), nil
		}
		return t.create(ctx, env, abs, real, shown, title, in.NewString)
	case err != nil:
		return errorResult(title, "cannot edit %s: %v", shown, err), nil
	case info.IsDir():
		return errorResult(title, "%s is a directory; give a file path", shown), nil
	case !info.Mode().IsRegular():
		return errorResult(title, "cannot edit %s: it is %s, not a regular file", shown, safefile.Kind(info.Mode())), nil
	}
	if msg := staleMessage(env, abs, shown, info, "edit"); msg != "" {
		return errorResult(title, "%s", msg), nil
	}
	b, err := readRegular(real)
	if err != nil {
		return errorResult(title, "cannot edit %s: %v", shown, err), nil
	}
	content := string(b)
	if text, ok := editorText(ctx, env, real); ok { // the editor's buffer, saved or not
		content = text
	}

	if in.OldString == "" {
		if content != "" {
			return errorResult(title, "old_string is empty but %s is not: give the exact text to replace (or use write to replace the whole file)", shown), nil
		}
		return t.create(ctx, env, abs, real, shown, title, in.NewString)
	}

	r := replaceIn(content, in)
	old, new, count := r.old, r.new, r.count
	switch {
	case count == 0:
		return errorResult(title, "%s", notFoundHint(content, in.OldString, shown)), nil
	case count > 1 && !in.ReplaceAll:
		return errorResult(title, "old_string appears %d times in %s (at lines %s): include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence",
			count, shown, joinInts(occurrenceLines(content, old, 10))), nil
	}
	firstAt, updated := r.firstAt, r.updated
	if err := writeFile(ctx, env, abs, real, updated); err != nil {
		return errorResult(title, "cannot edit %s: %v", shown, err), nil
	}

	meta := diffMetadata(shown, content, updated)
	meta["path"] = real
	meta["replacements"] = count
	startLine := strings.Count(content[:firstAt], "\n") + 1
	endLine := startLine + strings.Count(new, "\n")
	var out string
	if count == 1 {
		out = fmt.Sprintf("Edited %s: replaced 1 occurrence (now lines %d-%d). The result around the change:\n%s",
			shown, startLine, endLine, numberedSnippet(updated, startLine-3, endLine+3, 40))
	} else {
		out = fmt.Sprintf("Edited %s: replaced all %d occurrences (first at line %d).", shown, count, startLine)
	}
	return Result{Output: out, Title: title, Metadata: meta}, nil
}

func (editTool) create(ctx context.Context, env *Env, abs, real, shown, title, content string) (Result, error) {
	if err := writeFile(ctx, env, abs, real, content); err != nil {
		return errorResult(title, "cannot create %s: %v", shown, err), nil
	}
	meta := diffMetadata(shown, "", content)
	meta["path"] = real
	meta["created"] = true
	return Result{
		Output:   fmt.Sprintf("Created %s (%d lines).", shown, countTextLines(content)) + throughLink(env, abs, real),
		Title:    title,
		Metadata: meta,
	}, nil
}

// replacement is an edit applied to a file's content in memory.
type replacement struct {
	old, new string // as matched: with CRLF in a CRLF file
	count    int    // occurrences of old; 0 when it is not there
	firstAt  int    // byte offset of the first occurrence
	updated  string // the content after the edit (when count is 1, or replace_all)
}

// replaceIn applies in to content without writing anything: the model's
// plain newlines match CRLF in a CRLF file, and CRLF is written back.
func replaceIn(content string, in editInput) replacement {
	r := replacement{old: in.OldString, new: in.NewString}
	if strings.Contains(content, "\r\n") {
		if c := strings.Count(content, toCRLF(r.old)); c > 0 {
			r.old, r.new, r.count = toCRLF(r.old), toCRLF(r.new), c
		}
	}
	if r.count == 0 {
		r.count = strings.Count(content, r.old)
	}
	if r.count == 0 || r.count > 1 && !in.ReplaceAll {
		return r
	}
	n := 1
	if in.ReplaceAll {
		n = -1
	}
	r.firstAt = strings.Index(content, r.old)
	r.updated = strings.Replace(content, r.old, r.new, n)
	return r
}

// toCRLF turns the newlines of s into CRLF (CRLF already there stays).
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// occurrenceLines returns the line numbers where old starts in content, at
// most limit of them.
func occurrenceLines(content, old string, limit int) []int {
	var lines []int
	line, from := 1, 0
	for len(lines) < limit {
		i := strings.Index(content[from:], old)
		if i < 0 {
			break
		}
		line += strings.Count(content[from:from+i], "\n")
		lines = append(lines, line)
		line += strings.Count(old, "\n")
		from += i + len(old)
	}
	return lines
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// notFoundHint explains a failed match, pointing at a near match when the
// text is there with other indentation or spacing, or with read's line
// numbers pasted in.
func notFoundHint(content, old, shown string) string {
	msg := fmt.Sprintf("old_string was not found in %s. It must match exactly, including whitespace and indentation; read the file again and copy the text", shown)
	if looksNumbered(old) {
		return msg + ". It seems to include read's line-number prefixes (a number and a tab at the start of each line): leave those out."
	}
	if line := fuzzyLine(content, old); line > 0 {
		return msg + fmt.Sprintf(". Text matching it when whitespace is ignored starts at line %d.", line)
	}
	return msg + "."
}

// looksNumbered reports whether every line of s starts like read's output.
func looksNumbered(s string) bool {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		i := strings.IndexByte(t, '\t')
		if i <= 0 || strings.Trim(t[:i], "0123456789") != "" {
			return false
		}
	}
	return true
}

// fuzzyLine finds the first line where old matches content with each line
// trimmed of surrounding whitespace, or returns 0.
func fuzzyLine(content, old string) int {
	want := trimmedLines(old)
	if len(want) == 0 {
		return 0
	}
	have := strings.Split(content, "\n")
	for i := 0; i+len(want) <= len(have); i++ {
		ok := true
		for j, w := range want {
			if strings.TrimSpace(have[i+j]) != w {
				ok = false
				break
			}
		}
		if ok {
			return i + 1
		}
	}
	return 0
}

func trimmedLines(s string) []string {
	lines := strings.Split(strings.Trim(s, "\r\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	return lines
}

// numberedSnippet returns lines from..to (1-based, clamped) of content in
// read's format, at most maxLines of them.
func numberedSnippet(content string, from, to, maxLines int) string {
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	from = max(from, 1)
	to = min(to, len(lines), from+maxLines-1)
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n, strings.TrimSuffix(lines[n-1], "\r"))
	}
	return b.String()
}
