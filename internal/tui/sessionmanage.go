package tui

// Renaming and deleting sessions from the /sessions picker (overlay's
// Manageable picker asks; this file does it). The open session is neither
// renamed nor deleted here: its runner holds the row and would write its
// old title back, and a chat cannot delete the session it drives — the
// picker says so. A rename writes the title the user typed; a delete goes
// through Options.DeleteSession (what `agent sessions rm` removes), so a
// session another agent drives is refused with its reason. The I/O runs
// in a command; its answer (sessionActedMsg) refills the picker.

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// sessionActedMsg is the end of a rename or a delete: what to say.
type sessionActedMsg struct{ note string }

// sessionAction returns the command that does a, or says at once why it
// is not done (note).
func sessionAction(st *storage.Store, current string, del func(context.Context, *storage.Store, *message.Session) error, a overlay.PickerAction) (note string, cmd tea.Cmd) {
	switch {
	case st == nil:
		return "no sessions yet", nil
	case a.Value == current && a.Rename:
		return "this is the open session: rename it from another chat or with `agent sessions rename`", nil
	case a.Value == current:
		return "this is the open session: start another (/new) to delete it", nil
	}
	if del == nil {
		del = func(ctx context.Context, st *storage.Store, s *message.Session) error {
			return st.DeleteSession(ctx, s.ID)
		}
	}
	return "", func() tea.Msg {
		ctx := context.Background()
		s, err := st.GetSession(ctx, a.Value)
		if err != nil {
			return sessionActedMsg{note: err.Error()}
		}
		if a.Rename {
			s.Title = a.Title
			if err := st.UpdateSession(ctx, s); err != nil {
				return sessionActedMsg{note: fmt.Sprintf("rename %s: %v", a.Label, err)}
			}
			return sessionActedMsg{note: "renamed to " + a.Title}
		}
		if err := del(ctx, st, s); err != nil {
			return sessionActedMsg{note: fmt.Sprintf("delete %s: %v", a.Label, err)}
		}
		return sessionActedMsg{note: "deleted " + a.Label}
	}
}
