package tools

// Diffs before consent: the permission dialog of an edit or a write shows
// the change the call would make. PreviewDiff computes it the way the tool
// will, reading the file and writing nothing.

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// PreviewDiff returns the unified diff call (an edit or a write) would
// make if it ran now, or "" when it would fail (old_string not found,
// ambiguous, not a regular file), the file is too large for a diff, or
// call is another tool. It reads the file and writes nothing.
func PreviewDiff(env *Env, call Call) string {
	c, ok := PreviewChange(env.Dir, call, previewRead)
	if !ok {
		return ""
	}
	d, _ := diffMetadata(displayPath(env.Dir, c.Path), c.Old, c.New)["diff"].(string)
	return d
}

// Change is what a write or edit call would make of one file.
type Change struct {
	Path string // absolute (AbsPath of the call's path), symlinks not resolved
	// Old is the file's text before the call; "" with Exists false when
	// there is no file yet.
	Old    string
	Exists bool
	New    string // the file's text after the call
}

// PreviewChange works out, by the write and edit tools' own rules, the
// change call would make of the file whose current text read gives (read
// takes the absolute path; exists false: no such file; an error: it
// cannot be read). ok is false for another tool, input that does not
// decode, a file that cannot be read, or an edit the tool would refuse
// (old_string not found, or found more than once without replace_all;
// old_string empty on a file with text; old_string equal to new_string).
func PreviewChange(dir string, call Call, read func(path string) (text string, exists bool, err error)) (c Change, ok bool) {
	switch call.Name {
	case "write":
		var in writeInput
		if decodeInput(call.Input, &in) != nil || strings.TrimSpace(in.Path) == "" {
			return Change{}, false
		}
		c.Path, c.New = AbsPath(dir, in.Path), in.Content
	case "edit":
		var in editInput
		if decodeInput(call.Input, &in) != nil || strings.TrimSpace(in.Path) == "" || in.OldString == in.NewString {
			return Change{}, false
		}
		c.Path = AbsPath(dir, in.Path)
		var err error
		if c.Old, c.Exists, err = read(c.Path); err != nil {
			return Change{}, false
		}
		if in.OldString == "" {
			c.New = in.NewString
			return c, c.Old == "" // edit creates the file, or fills an empty one
		}
		r := replaceIn(c.Old, in)
		if r.count == 0 || r.count > 1 && !in.ReplaceAll {
			return Change{}, false
		}
		c.New = r.updated
		return c, true
	default:
		return Change{}, false
	}
	var err error
	if c.Old, c.Exists, err = read(c.Path); err != nil {
		return Change{}, false
	}
	return c, true
}

// errTooLargeForDiff is previewRead's error for a file larger than a
// diff is worked out for.
var errTooLargeForDiff = errors.New("too large for a diff")

// previewRead reads the file at path (absolute) as the tools would before
// changing it: exists false for a file that does not exist yet; an error
// when it cannot be read or is not a regular file.
func previewRead(path string) (string, bool, error) {
	real, err := resolveLinks(path)
	if err != nil {
		return "", false, err
	}
	info, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	case !info.Mode().IsRegular():
		return "", false, notRegular(info)
	case info.Size() > maxDiffInput:
		return "", false, errTooLargeForDiff
	}
	b, err := readRegular(real)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}
