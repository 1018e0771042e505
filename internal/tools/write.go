package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/safefile"
)

type writeTool struct{}

type writeInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (writeTool) Name() string   { return "write" }
func (writeTool) ReadOnly() bool { return false }

func (writeTool) Description() string {
	return `Create a file, or overwrite one entirely, with the given content. Parent directories are created.

- path is relative to the session's directory (absolute paths work too).
- To change part of an existing file, use edit instead: it is safer and shows a smaller diff.
- An existing file must have been read in this session and not changed on disk since; otherwise read it first.`
}

func (writeTool) Parameters() json.RawMessage { return writeParameters() }

// writeParameters is built once: every request carries it.
var writeParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "path", typ: "string", required: true, description: "The file to write."},
		param{name: "content", typ: "string", required: true, description: "The complete new content of the file."},
	)
})

func (writeTool) title(env *Env, input json.RawMessage) string {
	var in writeInput
	if decodeInput(input, &in) != nil || in.Path == "" {
		return ""
	}
	return "write " + shownPath(env, in.Path)
}

func (t writeTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in writeInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Path) == "" {
		return errorResult("write", "path is empty: give the file to write"), nil
	}
	abs := absPath(env.Dir, in.Path)
	shown := displayPath(env.Dir, abs)
	title := "write " + shown

	// Where the path really leads, resolved again now (the permission
	// check resolved it too): a symlink, dangling or not, is followed.
	real, err := resolveLinks(abs)
	if err != nil {
		return errorResult(title, "cannot write %s: %v", shown, err), nil
	}

	var old string
	existed := false
	info, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return errorResult(title, "cannot write %s: %v", shown, err), nil
	case info.IsDir():
		return errorResult(title, "%s is a directory; give a file path", shown), nil
	case !info.Mode().IsRegular():
		return errorResult(title, "cannot write %s: it is %s, not a regular file", shown, safefile.Kind(info.Mode())), nil
	default:
		if msg := staleMessage(env, abs, shown, info, "overwrite"); msg != "" {
			return errorResult(title, "%s", msg), nil
		}
		b, err := readRegular(real)
		if err != nil {
			return errorResult(title, "cannot write %s: %v", shown, err), nil
		}
		old, existed = string(b), true
	}

	if err := writeFile(ctx, env, abs, real, in.Content); err != nil {
		return errorResult(title, "cannot write %s: %v", shown, err), nil
	}
	meta := diffMetadata(shown, old, in.Content)
	meta["path"] = real
	meta["created"] = !existed
	lines := countTextLines(in.Content)
	var out string
	if existed {
		out = fmt.Sprintf("Overwrote %s (%d lines, %s; it had %d lines).", shown, lines, truncate.FormatBytes(int64(len(in.Content))), countTextLines(old))
	} else {
		out = fmt.Sprintf("Created %s (%d lines, %s).", shown, lines, truncate.FormatBytes(int64(len(in.Content))))
	}
	return Result{Output: out + throughLink(env, abs, real), Title: title, Metadata: meta}, nil
}

// throughLink notes where a symlinked path led, or returns "".
func throughLink(env *Env, abs, real string) string {
	if filepath.Join(resolvePath(filepath.Dir(abs)), filepath.Base(abs)) == real {
		return ""
	}
	return fmt.Sprintf(" (%s is a symbolic link: the file written is %s)", displayPath(env.Dir, abs), displayPath(env.Dir, real))
}

// writeFile writes content to real, the resolved path of abs (see
// writeResolved: parent directories created, an existing file's mode kept,
// no symlink followed at the last moment), records the new state in the
// tracker under abs, the path the model reads and writes by, and tells the
// session's editor (every file a tool writes, created or not, goes
// through here).
func writeFile(ctx context.Context, env *Env, abs, real, content string) error {
	if err := writeResolved(real, content); err != nil {
		return err
	}
	if env.Files != nil {
		if info, err := os.Stat(real); err == nil {
			env.Files.Record(abs, info)
		}
	}
	editorWrote(ctx, env, real, content)
	return nil
}

// staleMessage says why the agent may not change the existing file at abs
// (never read in this session, or changed on disk since), or returns "".
func staleMessage(env *Env, abs, shown string, info fs.FileInfo, verb string) string {
	if env.Files == nil {
		return ""
	}
	switch state, at := env.Files.check(abs, info); state {
	case fileNotRead:
		return fmt.Sprintf("%s has not been read in this session: read it first, then %s it (so that nothing in it is overwritten unseen)", shown, verb)
	case fileStale:
		return fmt.Sprintf("%s has changed on disk since you last read it (%s ago, now modified %s): read it again, then %s it",
			shown, time.Since(at).Round(time.Second), info.ModTime().Format("15:04:05"), verb)
	}
	return ""
}

// maxDiffInput bounds the file sizes a diff is computed for.
const maxDiffInput = 1 << 20

// diffMetadata returns the unified diff of a change and its line counts,
// for the TUI.
func diffMetadata(name, old, new string) map[string]any {
	meta := map[string]any{}
	if len(old)+len(new) > maxDiffInput {
		meta["diff_skipped"] = "file too large for a diff"
		return meta
	}
	diff := udiff.Unified("a/"+name, "b/"+name, old, new)
	added, removed := diffLineCounts(diff)
	meta["diff"] = diff
	meta["additions"] = added
	meta["deletions"] = removed
	return meta
}

// diffLineCounts counts the added and removed lines of a one-file
// unified diff as git's numstat does: the "---" and "+++" lines before the
// first hunk are its header; in a hunk every '+' or '-' line is content,
// "--- x" (the removed line "-- x") included.
func diffLineCounts(diff string) (added, removed int) {
	inHunk := false
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}

// countTextLines counts lines as an editor shows them.
func countTextLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
