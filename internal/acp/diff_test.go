package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// The diff shown for a write or edit is the change the tool would make,
// by the tool's own rules (tools.PreviewChange): an edit the tool refuses
// (an old_string found twice without replace_all, not found, equal to
// new_string) shows no diff.
func TestDiffIsTheToolsChange(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x = 1\nx = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(name string, in map[string]any) *message.ToolState {
		b, _ := json.Marshal(in)
		return &message.ToolState{Name: name, Input: string(b)}
	}
	for _, c := range []struct {
		name   string
		st     *message.ToolState
		newTxt string // "" : no diff
	}{
		{"ambiguous", call("edit", map[string]any{"path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"}), ""},
		{"replace all", call("edit", map[string]any{"path": "a.txt", "old_string": "x = 1", "new_string": "x = 2", "replace_all": true}), "x = 2\nx = 2\n"},
		{"not found", call("edit", map[string]any{"path": "a.txt", "old_string": "y", "new_string": "z"}), ""},
		{"no change", call("edit", map[string]any{"path": "a.txt", "old_string": "x = 1\nx", "new_string": "x = 1\nx"}), ""},
		{"create", call("edit", map[string]any{"path": "b.txt", "old_string": "", "new_string": "new\n"}), "new\n"},
		{"write", call("write", map[string]any{"path": "a.txt", "content": "w\n"}), "w\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diffOf(dir, c.st, nil)
			switch {
			case c.newTxt == "" && d != nil:
				t.Errorf("a diff for an edit the tool refuses: %+v", d.Diff)
			case c.newTxt != "" && (d == nil || d.Diff == nil):
				t.Errorf("no diff, want one to %q", c.newTxt)
			case c.newTxt != "" && d.Diff.NewText != c.newTxt:
				t.Errorf("new text %q, want %q", d.Diff.NewText, c.newTxt)
			}
		})
	}
}

// A path the tools expand (~/ is the home directory) is shown as the
// tools read it.
func TestLocationsExpandHome(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	st := &message.ToolState{Name: "read", Input: `{"path":"~/notes.txt"}`}
	locs := locations("/work/project", st)
	if want := tools.AbsPath("/work/project", "~/notes.txt"); len(locs) != 1 || locs[0].Path != want || want != filepath.Join(home, "notes.txt") {
		t.Errorf("locations %+v, want %s", locs, filepath.Join(home, "notes.txt"))
	}
}

// A long title is cut at a character's boundary: what the client is sent
// stays valid UTF-8.
func TestTitleCutsAtARune(t *testing.T) {
	for n := 0; n < 4; n++ {
		cmd := strings.Repeat("a", n) + strings.Repeat("é€𝄞", 100)
		b, _ := json.Marshal(map[string]string{"command": cmd})
		got := title(&message.ToolState{Name: "bash", Input: string(b)})
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > len("bash: ")+200+len("…") {
			t.Errorf("title %q (valid UTF-8: %v, %d bytes)", got, utf8.ValidString(got), len(got))
		}
	}
}
