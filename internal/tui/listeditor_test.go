package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// TestListEditorSavesExpanded: the editor the chat gives the list
// drawers (chatHost.TextArea) shows a long text as a paste placeholder
// and hands back the text whole.
func TestListEditorSavesExpanded(t *testing.T) {
	big := strings.Repeat("line\n", collapseLines+1)
	a := chatHost{&Model{th: newTheme(true), width: 80}}.TextArea(big, 74, 4)
	if !strings.Contains(a.View(), "[paste #1") {
		t.Errorf("a long text not shown as a placeholder: %q", a.View())
	}
	if a.Text() != big {
		t.Errorf("Text %q, want the text expanded", a.Text())
	}
}

// pinEdits records the pin edits of the pins drawer.
type pinEdits struct{ edited map[string]string }

func (p *pinEdits) EditPin(_ context.Context, id, text string) error {
	p.edited[id] = text
	return nil
}
func (p *pinEdits) RemovePin(context.Context, string) error { return nil }

// TestPinsDrawerSavesALongPinWhole: a pin long enough for the editor to
// show it as a paste placeholder is saved as its text, never as the
// placeholder ("[paste #1 · …]" stored in place of the pin).
func TestPinsDrawerSavesALongPinWhole(t *testing.T) {
	big := strings.Repeat("a fact\n", collapseLines+1)
	h := chatHost{&Model{th: newTheme(true), width: 80}}
	pins := []message.Pin{{ID: "p1", Text: big}}
	ops := &pinEdits{edited: map[string]string{}}
	d := overlay.NewPinsDrawer()
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	d.Update(h, pins, ops, enter) // opens the editor
	_, cmd := d.Update(h, pins, ops, enter)
	if cmd == nil {
		t.Fatal("enter in the editor saved nothing")
	}
	if msg, ok := cmd().(overlay.PinDoneMsg); !ok || msg.Verb != "edited" || msg.Err != nil {
		t.Fatalf("saving: %+v", msg)
	}
	if ops.edited["p1"] != big {
		t.Fatalf("saved %q, want the pin's whole text", ops.edited["p1"])
	}
}
