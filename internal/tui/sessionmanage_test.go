package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/storage"
)

// TestSessionsPickerRenamesAndDeletes: in /sessions, ctrl+r renames the
// selected session (an empty title is refused, esc leaves the rename),
// ctrl+d asks before it deletes (any key but y keeps it), and the list
// shows the result; the database holds it (issue 32 item 9).
func TestSessionsPickerRenamesAndDeletes(t *testing.T) {
	h := newHarness(t, nil)
	alpha := storeSession(t, h, "alpha refactor", "output one", false)
	beta := storeSession(t, h, "beta refactor", "output two", false)
	ctx := context.Background()
	ctrl := func(r rune) { h.send(tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl}) }

	h.typeText("/sessions")
	h.key("enter")
	h.waitScreen("beta refactor")
	h.typeText("alpha") // select alpha by filtering to it
	ctrl('r')
	h.waitScreen("rename › alpha refactor")
	for range len("alpha refactor") {
		h.key("backspace")
	}
	h.key("enter")
	h.waitScreen("a title cannot be empty")
	h.typeText("the parser fix")
	h.key("enter")
	h.waitScreen("renamed to the parser fix")
	if s, err := h.store.GetSession(ctx, alpha.ID); err != nil || s.Title != "the parser fix" {
		t.Fatalf("alpha after the rename: %+v, %v", s, err)
	}
	for range len("alpha") {
		h.key("backspace")
	}
	h.typeText("beta")
	ctrl('d')
	h.waitScreen("delete beta refactor?")
	h.typeText("n")
	h.waitScreen("kept beta refactor")
	ctrl('d')
	h.typeText("y")
	h.waitScreen("deleted beta refactor")
	if _, err := h.store.GetSession(ctx, beta.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("beta after the delete: %v", err)
	}
	for range len("beta") {
		h.key("backspace")
	}
	h.waitFor("the list without beta", func(m *Model) bool {
		s := screenOf(m)
		return strings.Contains(s, "the parser fix") && !strings.Contains(s, "beta refactor\u00a0") && !strings.Contains(s, "  beta refactor")
	})
	if pickerOf(t, h.m) == nil {
		t.Fatal("the picker closed")
	}
}
