package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

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

func TestListEditorSavesExpanded(t *testing.T) {
	big := strings.Repeat("line\n", collapseLines+1)
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	{
		l := listEditor{editHeight: 4}
		l.edit(newTheme(true), 80, "id1", big)
		saved, _ := l.updateEditing(enter)
		if saved == nil || saved.id != "id1" || l.editing != nil {
			t.Fatalf("saved %+v, editing %v", saved, l.editing != nil)
		}
		if saved.text != big {
			t.Errorf("saved %q, want the text expanded", saved.text)
		}
	}
	l := listEditor{editHeight: 4}
	l.edit(newTheme(true), 80, "id1", "  ")
	if saved, _ := l.updateEditing(enter); saved != nil {
		t.Errorf("a blank text saved: %+v", saved)
	}
	l.edit(newTheme(true), 80, "id1", "keep")
	if saved, _ := l.updateEditing(tea.KeyPressMsg{Code: tea.KeyEscape}); saved != nil || l.editing != nil {
		t.Errorf("esc: saved %+v, editing %v", saved, l.editing != nil)
	}
}

// TestPinsDrawerSavesALongPinWhole: a pin long enough for the editor to
// show it as a paste placeholder is saved as its text, never as the
// placeholder ("[paste #1 · …]" stored in place of the pin).
func TestPinsDrawerSavesALongPinWhole(t *testing.T) {
	big := strings.Repeat("a fact\n", collapseLines+1)
	d := newPinsDrawer()
	d.list.edit(newTheme(true), 80, "p1", big)
	saved, _ := d.list.updateEditing(tea.KeyPressMsg{Code: tea.KeyEnter})
	if saved == nil || saved.text != big {
		t.Fatalf("saved %+v, want the pin's whole text", saved)
	}
}
