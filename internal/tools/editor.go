package tools

// editor.go: the editor a session runs in, when it offers its files (the
// Agent Client Protocol's fs/read_text_file and fs/write_text_file,
// internal/acp). Its open buffers, saved or not, are what read and edit
// see; what write and edit store goes to the disk as always (so the
// checks of write.go, the file tracker and the checkpoints see it) and is
// then sent to the editor (writeFile: every write, a created file too), so
// its buffer shows the change. A failure to reach the editor falls back to
// the disk: the call never fails for it.

import "context"

// Editor is the session's editor; Env.Editor nil means the disk only.
type Editor interface {
	// ReadText returns the editor's text of the file at path (absolute,
	// links resolved); an error means the disk is read instead.
	ReadText(ctx context.Context, path string) (string, error)
	// WroteText tells the editor the file at path now holds content.
	WroteText(ctx context.Context, path, content string)
}

// editorText is the editor's text of path, if it has one.
func editorText(ctx context.Context, env *Env, path string) (string, bool) {
	if env == nil || env.Editor == nil {
		return "", false
	}
	s, err := env.Editor.ReadText(ctx, path)
	return s, err == nil
}

// editorWrote tells the editor of a write, if there is one.
func editorWrote(ctx context.Context, env *Env, path, content string) {
	if env != nil && env.Editor != nil {
		env.Editor.WroteText(ctx, path, content)
	}
}
