package overlay

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/snapshot"
)

// TestOutsideDialogDefaultsToCancel: the dialog before a restore over
// files changed outside the agent opens on the safe choice, so an Enter
// typed without reading restores nothing; only alt+r or a move to
// "restore anyway" and Enter overwrites (issue 32 item 6).
func TestOutsideDialogDefaultsToCancel(t *testing.T) {
	files := []snapshot.FileChange{{Path: "notes.txt"}}
	for _, tc := range []struct {
		keys    []string
		restore bool
	}{
		{[]string{"enter"}, false},
		{[]string{"esc"}, false},
		{[]string{"alt+r"}, true},
		{[]string{"left", "enter"}, true},
	} {
		d := NewOutsideDialog("undo", files, nil)
		var res Result = Keep
		for _, k := range tc.keys {
			res, _ = d.Update(fakeHost{}, keyPress(k))
		}
		if res != Close || d.Restore() != tc.restore {
			t.Errorf("%v: result %v, restore %v; want Close and %v", tc.keys, res, d.Restore(), tc.restore)
		}
	}
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "alt+r":
		return tea.KeyPressMsg{Code: 'r', Mod: tea.ModAlt}
	}
	panic(k)
}
