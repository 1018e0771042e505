package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeEditor is an editor with open buffers; a file without one fails,
// as a client that cannot read it would.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	told    map[string]string
}

func (f *fakeEditor) ReadText(_ context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.buffers[path]
	if !ok {
		return "", errors.New("not open")
	}
	return s, nil
}

func (f *fakeEditor) WroteText(_ context.Context, path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.told[path] = content
}

// TestEditorBuffersAreReadAndTold: read and edit see the editor's
// unsaved buffer; edit and write land on disk and are told to the
// editor; a file the editor cannot give is read from disk.
func TestEditorBuffersAreReadAndTold(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"open.txt": "disk version\n", "closed.txt": "only on disk\n"})
	open := filepath.Join(env.Dir, "open.txt")
	ed := &fakeEditor{buffers: map[string]string{open: "buffer version\n"}, told: map[string]string{}}
	env.Editor = ed

	if r := call(t, env, "read", map[string]any{"path": "open.txt"}); r.IsError || !strings.Contains(r.Output, "buffer version") {
		t.Fatalf("read: %+v", r)
	}
	if r := call(t, env, "read", map[string]any{"path": "closed.txt"}); r.IsError || !strings.Contains(r.Output, "only on disk") {
		t.Fatalf("read of a file the editor lacks: %+v", r)
	}
	if r := call(t, env, "edit", map[string]any{"path": "open.txt", "old_string": "buffer", "new_string": "edited"}); r.IsError {
		t.Fatalf("edit: %+v", r)
	}
	if b, _ := os.ReadFile(open); string(b) != "edited version\n" || ed.told[open] != "edited version\n" {
		t.Errorf("after edit: disk %q, editor told %q", b, ed.told[open])
	}
	if r := call(t, env, "write", map[string]any{"path": "new.txt", "content": "fresh\n"}); r.IsError {
		t.Fatalf("write: %+v", r)
	}
	if ed.told[filepath.Join(env.Dir, "new.txt")] != "fresh\n" {
		t.Errorf("write not told: %v", ed.told)
	}
}

// TestEditorToldOfEveryWrite: every file a tool writes is told to the
// editor, the files it creates included (edit with an empty old_string of
// a new file, or of an empty one).
func TestEditorToldOfEveryWrite(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"empty.txt": ""})
	ed := &fakeEditor{buffers: map[string]string{}, told: map[string]string{}}
	env.Editor = ed
	call(t, env, "read", map[string]any{"path": "empty.txt"})
	for _, c := range []struct{ tool, path string }{{"edit", "created.txt"}, {"edit", "sub/deep.txt"}, {"edit", "empty.txt"}, {"write", "written.txt"}} {
		input := map[string]any{"path": c.path, "old_string": "", "new_string": "made by " + c.tool + "\n"}
		if c.tool == "write" {
			input = map[string]any{"path": c.path, "content": "made by write\n"}
		}
		if r := call(t, env, c.tool, input); r.IsError {
			t.Fatalf("%s %s: %+v", c.tool, c.path, r)
		}
		if got := ed.told[filepath.Join(env.Dir, c.path)]; got != "made by "+c.tool+"\n" {
			t.Errorf("%s of %s: the editor was told %q (told: %v)", c.tool, c.path, got, ed.told)
		}
	}
}
