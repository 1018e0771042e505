package snapshot

// diff.go: the patch between two snapshots — the files with their line
// counts, and a unified diff bounded for display.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxloop/agent/internal/gitcmd"
)

// Status is how a file changed between two snapshots.
type Status byte

// Statuses of a FileChange (git's letters).
const (
	Added       Status = 'A'
	Modified    Status = 'M'
	Deleted     Status = 'D'
	TypeChanged Status = 'T' // file ↔ symlink
)

func (s Status) String() string {
	switch s {
	case Added:
		return "added"
	case Modified:
		return "modified"
	case Deleted:
		return "deleted"
	case TypeChanged:
		return "type changed"
	}
	return "changed"
}

// FileChange is one file of a patch.
type FileChange struct {
	Path   string
	Status Status
	// OldMode and NewMode are git's modes ("100644", "100755", "120000"
	// for a symlink; "000000" when absent).
	OldMode, NewMode string
	// NewBlob is the object holding the new content (zeros when deleted).
	NewBlob string
	Binary  bool
	// LinesAdded and LinesDeleted are 0 for a binary file.
	LinesAdded, LinesDeleted int
	// OldPerm and NewPerm are the exact permission bits (07777; 0 when
	// absent or a symlink). ModeOnly is set when nothing but them changed.
	OldPerm, NewPerm uint32 `json:",omitempty"`
	ModeOnly         bool   `json:",omitempty"`
	// OldBlob is the object holding the old content (zeros when added).
	OldBlob string `json:",omitempty"`
	// Pruned: a content of this change was borrowed from the user's
	// repository, whose git gc has removed it (gone.go); the diff text
	// says so (ContentPruned) instead of showing it.
	Pruned bool `json:",omitempty"`
}

// DefaultPatchMaxBytes bounds Patch.Text.
const DefaultPatchMaxBytes = 256 << 10

// Patch is what changed between two snapshots.
type Patch struct {
	From, To ID
	Files    []FileChange
	// Text is the unified diff (binary files named as such), cut at
	// DefaultPatchMaxBytes; Truncated says it was.
	Text      string
	Truncated bool
}

// Diff returns the patch from one snapshot to another, limited to paths
// (relative to the work tree) when any are given.
func (s *Store) Diff(ctx context.Context, from, to ID, paths ...string) (*Patch, error) {
	files, err := s.changes(ctx, from, to, paths)
	if err != nil {
		return nil, err
	}
	p := &Patch{From: from, To: to, Files: files}
	if len(files) == 0 {
		return p, nil
	}
	text, truncated, err := patchText(ctx, s.git, from, to, paths)
	if err != nil && strings.Contains(err.Error(), "unable to read") {
		return pruned{s}.diff(ctx, p) // gone.go
	}
	if err != nil {
		return nil, err
	}
	p.Text, p.Truncated = text, truncated
	return p, nil
}

// patchText is the unified diff from one snapshot to another (of paths,
// when any), cut at DefaultPatchMaxBytes (truncated).
func patchText(ctx context.Context, git gitcmd.Private, from, to ID, paths []string) (text string, truncated bool, err error) {
	args := append([]string{"diff-tree", "-p", "--no-color", "--no-textconv", "--no-ext-diff", "--no-renames", "--full-index", string(from), string(to), "--"}, paths...)
	var b strings.Builder
	errFull := errors.New("full")
	err = git.Stream(ctx, func(r io.Reader) error {
		n, err := io.Copy(&b, io.LimitReader(r, DefaultPatchMaxBytes+1))
		if err != nil {
			return err
		}
		if n > DefaultPatchMaxBytes {
			return errFull
		}
		return nil
	}, args...)
	if errors.Is(err, errFull) {
		return cutAtLine(b.String(), DefaultPatchMaxBytes), true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("diff snapshots %s..%s: %w", from, to, err)
	}
	return b.String(), false, nil
}

// cutAtLine cuts text to at most maxBytes, at the end of a line.
func cutAtLine(text string, maxBytes int) string {
	if len(text) <= maxBytes {
		return text
	}
	text = text[:maxBytes]
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		return text[:i+1]
	}
	return ""
}

// changes lists the files that differ between two snapshots (or trees),
// with their modes, new objects and line counts.
func (s *Store) changes(ctx context.Context, from, to ID, paths []string) ([]FileChange, error) {
	for _, id := range []ID{from, to} {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	args := append([]string{"diff-tree", "-r", "-z", "--raw", "--numstat", "--no-renames", "--no-textconv", "--no-ext-diff", string(from), string(to), "--"}, paths...)
	out, err := s.git.Output(ctx, nil, args...)
	if err != nil && strings.Contains(err.Error(), "unable to read") {
		// A borrowed blob is gone (seed.go): the line counts need it,
		// the list of files does not; the restore names what it cannot
		// bring back.
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--numstat" })
		out, err = s.git.Output(ctx, nil, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("diff snapshots %s..%s: %w", from, to, err)
	}
	files, err := parseRawNumstat(string(out))
	if err != nil {
		return nil, err
	}
	fromModes, err := s.modesOf(ctx, from)
	if err != nil {
		return nil, err
	}
	toModes, err := s.modesOf(ctx, to)
	if err != nil {
		return nil, err
	}
	return withModes(files, fromModes, toModes, paths), nil
}

// parseRawNumstat reads `git diff-tree -r -z --raw --numstat`: first a raw
// record per file (":old new oldblob newblob S\0path\0"), then a numstat
// record per file ("added\tdeleted\tpath\0", "-\t-\t" when binary).
func parseRawNumstat(out string) ([]FileChange, error) {
	var files []FileChange
	index := map[string]int{}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		if strings.HasPrefix(f, ":") {
			meta := strings.Fields(f[1:])
			if len(meta) != 5 || i+1 >= len(fields) {
				return nil, fmt.Errorf("diff-tree: bad raw record %q", f)
			}
			i++
			path := fields[i]
			index[path] = len(files)
			files = append(files, FileChange{
				Path: path, Status: Status(meta[4][0]),
				OldMode: meta[0], NewMode: meta[1], OldBlob: meta[2], NewBlob: meta[3],
			})
			continue
		}
		added, rest, ok1 := strings.Cut(f, "\t")
		deleted, path, ok2 := strings.Cut(rest, "\t")
		j, known := index[path]
		if !ok1 || !ok2 || !known {
			return nil, fmt.Errorf("diff-tree: bad numstat record %q", f)
		}
		if added == "-" {
			files[j].Binary = true
			continue
		}
		files[j].LinesAdded, _ = strconv.Atoi(added)
		files[j].LinesDeleted, _ = strconv.Atoi(deleted)
	}
	return files, nil
}
