package overlay

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// fakeHost is a Host without a chat: its TextArea edits nothing and
// holds the text it was given.
type fakeHost struct{}

func (fakeHost) Theme() *theme.Theme                     { return theme.New(true) }
func (fakeHost) Width() int                              { return 80 }
func (fakeHost) After(time.Duration, tea.Msg) tea.Cmd    { return nil }
func (fakeHost) TextArea(text string, _, _ int) TextArea { return &fakeArea{text: text} }

type fakeArea struct{ text string }

func (a *fakeArea) Update(tea.Msg) tea.Cmd { return nil }
func (a *fakeArea) View() string           { return a.text }
func (a *fakeArea) SetWidth(int)           {}
func (a *fakeArea) Text() string           { return a.text }

func TestListEditorMovesAndClamps(t *testing.T) {
	var l listEditor
	for _, k := range []string{"down", "j", "down", "down"} {
		if !l.move(k, 3) {
			t.Fatalf("move(%q) not taken", k)
		}
	}
	if l.sel != 2 {
		t.Fatalf("sel %d after four downs in three items; want 2", l.sel)
	}
	if l.move("x", 3) {
		t.Error("x taken as a move")
	}
	l.clamp(1)
	if l.sel != 0 {
		t.Errorf("sel %d clamped to one item; want 0", l.sel)
	}
}

// TestListEditorSaves: Enter saves the editor's whole text (Text), a
// blank text is not saved, Esc saves nothing; each closes the editor.
// (That Text expands a paste placeholder is the chat's TextArea's part:
// internal/tui TestListEditorSavesExpanded.)
func TestListEditorSaves(t *testing.T) {
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	l := listEditor{editHeight: 4}
	l.edit(fakeHost{}, "id1", "some text")
	saved, _ := l.updateEditing(enter)
	if saved == nil || saved.id != "id1" || saved.text != "some text" || l.editing != nil {
		t.Fatalf("saved %+v, editing %v", saved, l.editing != nil)
	}
	l.edit(fakeHost{}, "id1", "  ")
	if saved, _ := l.updateEditing(enter); saved != nil {
		t.Errorf("a blank text saved: %+v", saved)
	}
	l.edit(fakeHost{}, "id1", "keep")
	if saved, _ := l.updateEditing(tea.KeyPressMsg{Code: tea.KeyEscape}); saved != nil || l.editing != nil {
		t.Errorf("esc: saved %+v, editing %v", saved, l.editing != nil)
	}
	if got := strings.Join(l.view(theme.New(true), []string{"a"}, 20), "\n"); strings.Contains(got, "keep") {
		t.Errorf("the closed editor still shows: %q", got)
	}
}
