package overlay

// The pins drawer (/pins): the session's pins, to edit or remove. The
// chat passes the pins in as they stand and the loop's edits of them
// (PinOps); an edit runs off the Update loop and comes back as a
// PinDoneMsg.

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// PinOps are the edits of the session's pins (loop.Runner has them).
type PinOps interface {
	EditPin(ctx context.Context, id, text string) error
	RemovePin(ctx context.Context, id string) error
}

// PinDoneMsg is what came of an edit or removal of a pin.
type PinDoneMsg struct {
	Verb string // pinned, edited, removed
	Text string
	Err  error
}

// PinsDrawer lists the session's pins to edit or remove.
type PinsDrawer struct{ list listEditor }

// NewPinsDrawer opens on the first pin.
func NewPinsDrawer() *PinsDrawer { return &PinsDrawer{list: listEditor{editHeight: 6}} }

// Update acts on pins through ops (nil: no session).
func (d *PinsDrawer) Update(h Host, pins []message.Pin, ops PinOps, msg tea.Msg) (Result, tea.Cmd) {
	if ops == nil {
		return InfoKeys(msg), nil
	}
	if d.list.editing != nil {
		saved, cmd := d.list.updateEditing(msg)
		if saved == nil {
			return Keep, cmd
		}
		return Keep, func() tea.Msg {
			return PinDoneMsg{Verb: "edited", Text: saved.text, Err: ops.EditPin(context.Background(), saved.id, saved.text)}
		}
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	if len(pins) == 0 {
		return InfoKeys(msg), nil
	}
	d.list.clamp(len(pins))
	cur := pins[d.list.sel]
	if d.list.move(k.String(), len(pins)) {
		return Keep, nil
	}
	switch k.String() {
	case "esc", "q":
		return Close, nil
	case "enter", "e":
		d.list.edit(h, cur.ID, cur.Text)
	case "d", "delete", "backspace", "x":
		return Keep, func() tea.Msg {
			return PinDoneMsg{Verb: "removed", Text: cur.Text, Err: ops.RemovePin(context.Background(), cur.ID)}
		}
	}
	return Keep, nil
}

// View shows pins.
func (d *PinsDrawer) View(h Host, pins []message.Pin, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	var body []string
	if len(pins) == 0 {
		body = append(body, th.Dim.Render("no pins: /pin TEXT (or /pin on a selected message) adds one"))
	}
	rows := make([]string, len(pins))
	for i, p := range pins {
		rows[i] = fmt.Sprintf("%d. %s", i+1, theme.OneLine(termsafe.Strip(p.Text), inner-4))
	}
	body = append(body, d.list.view(th, rows, inner)...)
	footer := "↑↓ select · enter edit · d remove · esc"
	if d.list.editing != nil {
		footer = "enter save · shift+enter new line · esc cancel"
	}
	return theme.Frame(th, fmt.Sprintf("Pins (%d) · sent word for word after every summary", len(pins)),
		theme.ClampBody(body, height, d.list.sel), footer, width)
}
