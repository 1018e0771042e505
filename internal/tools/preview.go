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
	var path, old, updated string
	switch call.Name {
	case "write":
		var in writeInput
		if decodeInput(call.Input, &in) != nil || strings.TrimSpace(in.Path) == "" {
			return ""
		}
		content, ok := previewRead(env, in.Path)
		if !ok {
			return ""
		}
		path, old, updated = in.Path, content, in.Content
	case "edit":
		var in editInput
		if decodeInput(call.Input, &in) != nil || strings.TrimSpace(in.Path) == "" || in.OldString == in.NewString {
			return ""
		}
		content, ok := previewRead(env, in.Path)
		if !ok {
			return ""
		}
		if in.OldString == "" {
			if content != "" {
				return ""
			}
			path, old, updated = in.Path, "", in.NewString
			break
		}
		r := replaceIn(content, in)
		if r.count == 0 || r.count > 1 && !in.ReplaceAll {
			return ""
		}
		path, old, updated = in.Path, content, r.updated
	default:
		return ""
	}
	d, _ := diffMetadata(displayPath(env.Dir, absPath(env.Dir, path)), old, updated)["diff"].(string)
	return d
}

// previewRead reads the file at path as the tools would before changing
// it: "" and true for a file that does not exist yet; false when it cannot
// be read or is not a regular file.
func previewRead(env *Env, path string) (string, bool) {
	real, err := resolveLinks(absPath(env.Dir, path))
	if err != nil {
		return "", false
	}
	info, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", true
	case err != nil || !info.Mode().IsRegular() || info.Size() > maxDiffInput:
		return "", false
	}
	b, err := readRegular(real)
	if err != nil {
		return "", false
	}
	return string(b), true
}
