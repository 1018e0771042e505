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

func TestListEditorSavesExpandedUnlessRaw(t *testing.T) {
	big := strings.Repeat("line\n", collapseLines+1)
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	for _, raw := range []bool{false, true} {
		l := listEditor{editHeight: 4, raw: raw}
		l.edit(newTheme(true), 80, "id1", big)
		saved, _ := l.updateEditing(enter)
		if saved == nil || saved.id != "id1" || l.editing != nil {
			t.Fatalf("raw=%v: saved %+v, editing %v", raw, saved, l.editing != nil)
		}
		if expanded := saved.text == big; expanded == raw {
			t.Errorf("raw=%v: saved %q", raw, saved.text)
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
