package overlay

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// TextArea is a multi-line editor of one text, made by the chat
// (Host.TextArea) so that it edits as the chat's editor does.
type TextArea interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	// SetWidth sets the width in cells.
	SetWidth(width int)
	// Text is the text as edited, whole: a long text the editor shows as
	// a paste placeholder is expanded.
	Text() string
}

// listEditor is the selection and in-place editor of a drawer that lists
// texts to edit (the queue and pins drawers): ↑↓ (k j) move the
// selection, Enter (e) opens an editor on the selected item under its
// row, and in that editor Enter saves and Esc cancels. It holds no
// items: the drawer passes their count and rows in, and acts on what
// updateEditing reports (off the Update loop, in a tea.Cmd).
type listEditor struct {
	sel     int
	editing TextArea // nil unless an item is being edited
	editID  string   // the item being edited
	// editHeight is the editor's most lines.
	editHeight int
}

// listSaved is an edit the user saved: the item's id and its new text
// (never blank).
type listSaved struct{ id, text string }

// updateEditing gives msg to the open editor: Esc closes it, Enter
// closes it and reports the text saved (nil for a blank one), anything
// else edits.
func (l *listEditor) updateEditing(msg tea.Msg) (*listSaved, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			l.editing = nil
			return nil, nil
		case "enter":
			text := l.editing.Text()
			saved := &listSaved{id: l.editID, text: text}
			l.editing = nil
			if strings.TrimSpace(text) == "" {
				return nil, nil
			}
			return saved, nil
		}
	}
	return nil, l.editing.Update(msg)
}

// clamp keeps the selection within n items.
func (l *listEditor) clamp(n int) {
	l.sel = min(max(0, l.sel), max(0, n-1))
}

// move takes the selection keys for a list of n items and reports
// whether key was one.
func (l *listEditor) move(key string, n int) bool {
	switch key {
	case "up", "k":
		l.sel = max(0, l.sel-1)
	case "down", "j":
		l.sel = min(n-1, l.sel+1)
	default:
		return false
	}
	return true
}

// edit opens the editor on an item, for the chat's width.
func (l *listEditor) edit(h Host, id, text string) {
	l.editing = h.TextArea(text, max(10, h.Width()-6), l.editHeight)
	l.editID = id
}

// view lays out one row per item, the selected one highlighted across
// inner cells with the open editor under it.
func (l *listEditor) view(th *theme.Theme, rows []string, inner int) []string {
	var body []string
	for i, line := range rows {
		if i == l.sel {
			line = th.Selected.Render(theme.Pad(line, inner))
		}
		body = append(body, line)
		if l.editing != nil && i == l.sel {
			for _, e := range strings.Split(l.editing.View(), "\n") {
				body = append(body, "   "+e)
			}
		}
	}
	return body
}
