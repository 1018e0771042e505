package overlay

// The summary editor of /summary edit when $EDITOR is not set: the
// summary's editable text in the chat's editor (a long one shows as a
// paste placeholder and is saved whole). ctrl+s saves, esc cancels; the
// chat reads Saved once it closes and writes the summary.

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// SummaryEditor edits the summary.
type SummaryEditor struct {
	editing TextArea
	saved   string
	done    bool
}

// NewSummaryEditor edits in area, which holds the summary's text.
func NewSummaryEditor(area TextArea) *SummaryEditor { return &SummaryEditor{editing: area} }

// Saved is the text the user saved (whole), once Update returned Close
// on ctrl+s.
func (d *SummaryEditor) Saved() (string, bool) { return d.saved, d.done }

func (d *SummaryEditor) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			return Close, nil
		case "ctrl+s":
			d.saved, d.done = d.editing.Text(), true
			return Close, nil
		}
	}
	return Keep, d.editing.Update(msg)
}

func (d *SummaryEditor) View(h Host, width, height int) []string {
	d.editing.SetWidth(max(10, width-6))
	return theme.Frame(h.Theme(), "Summary · your text replaces it; your own messages kept in it word for word and the pins stay",
		strings.Split(d.editing.View(), "\n"), "ctrl+s save · esc cancel ($EDITOR, when set, is used instead)", width)
}
