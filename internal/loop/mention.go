package loop

// @mentions are resolved when a message is sent — typed into an idle
// session, or delivered from the queue — never when typed: a queued
// message attaches the file as it is when it goes. A file's content comes
// from the read tool and a directory's listing from ls, run through the
// permissions like the model's own calls (a path outside the directory
// asks), so the same limits, truncation notice and refusals (binary,
// missing, too large) apply. A mention that cannot be attached becomes a
// part that says why: the message is sent all the same, and the model and
// the transcript both see the reason. The inbox (steer.go) resolves them.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/ctxloop/agent/internal/mention"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// parts returns the parts of a user message: its text, then one file
// part per @mention.
func (in *inbox) parts(ctx context.Context, text string) []*message.Part {
	parts := []*message.Part{{Type: message.PartText, Text: text}}
	dir := in.d.env.Dir
	exists := func(p string) bool {
		_, err := os.Lstat(filepath.Join(dir, p))
		return err == nil
	}
	for _, m := range mention.Parse(text, exists) {
		parts = append(parts, &message.Part{Type: message.PartFile, File: in.attach(ctx, m)})
	}
	return parts
}

// attach resolves one mention through the read tool (a file) or ls (a
// directory, "@dir/").
func (in *inbox) attach(ctx context.Context, m mention.Mention) *message.FileState {
	f := &message.FileState{Kind: message.AttachFile, Path: m.Path}
	name := "read"
	if fi, err := os.Stat(filepath.Join(in.d.env.Dir, m.Path)); m.Dir() || (err == nil && fi.IsDir()) {
		f.Kind, name = message.AttachDir, "ls"
	}
	input, _ := json.Marshal(map[string]string{"path": m.Path})
	call := tools.Call{ID: "mention", Name: name, Input: input}
	res, err := in.d.registry().RunChecked(ctx, in.d.env, in.d.perms, call)
	switch {
	case err != nil:
		f.Error = err.Error()
	case res.IsError:
		f.Error = res.Output
	default:
		f.Content, f.Truncated = res.Output, res.Truncated
		f.Count = attachedCount(f.Kind, res.Metadata)
	}
	return f
}

// attachedCount is what a chip counts from the tool's metadata: read's
// total_lines, ls's entries; 0 when the tool did not say.
func attachedCount(kind string, meta map[string]any) int {
	key := "total_lines"
	if kind == message.AttachDir {
		key = "entries"
	}
	switch v := meta[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}
