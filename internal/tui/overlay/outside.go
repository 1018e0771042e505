package overlay

// The outside-change question: a restore (/undo, /redo, /rewind) would
// overwrite files changed outside the agent since its last snapshot. It
// is the chat's own question, not the loop's: it takes the keyboard at
// once, "cancel" highlighted, and does nothing itself — the chat reads
// Restore once it closes and runs the restore forced, or not.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// The choices of OutsideDialog, in button order; cancel is the default.
const (
	outsideRestore = iota
	outsideCancel
)

// outsideShortcuts are the modified keys of the choices.
var outsideShortcuts = map[string]int{"alt+r": outsideRestore, "alt+c": outsideCancel}

// maxOutsideListed bounds the files the dialog lists.
const maxOutsideListed = 8

// OutsideDialog asks before a restore overwrites files changed outside
// the agent.
type OutsideDialog struct {
	op      string // the command: undo, redo, rewind
	files   []snapshot.FileChange
	why     map[string]string // a file's reason when it is not surely the agent's change
	row     choiceRow         // outsideRestore, outsideCancel
	restore bool
}

// NewOutsideDialog asks before op restores over files (why: a file's
// reason when it is not surely the agent's change).
func NewOutsideDialog(op string, files []snapshot.FileChange, why map[string]string) *OutsideDialog {
	return &OutsideDialog{op: op, files: files, why: why,
		row: choiceRow{n: 2, shortcuts: outsideShortcuts, sel: outsideCancel}}
}

// Restore reports whether the user chose to restore anyway (once Update
// returned Close).
func (d *OutsideDialog) Restore() bool { return d.restore }

// Update closes on a choice (Esc cancels).
func (d *OutsideDialog) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	key := k.String()
	if key == "up" || key == "down" {
		key = "tab" // of two choices, every move flips the highlight
	}
	choice := d.row.update(key)
	if key == "esc" {
		choice = outsideCancel
	}
	switch choice {
	case outsideRestore:
		d.restore = true
		return Close, nil
	case outsideCancel:
		return Close, nil
	}
	return Keep, nil
}

func (d *OutsideDialog) View(h Host, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	body := []string{th.WarnText.Render(theme.Fit("These files changed outside the agent since it last left them, or not surely by it:", inner))}
	for i, f := range d.files {
		if i == maxOutsideListed {
			body = append(body, th.Dim.Render(fmt.Sprintf("  … and %d more", len(d.files)-i)))
			break
		}
		line := fmt.Sprintf("%-9s %s", f.Status.String(), termsafe.Strip(f.Path))
		if why := d.why[f.Path]; why != "" {
			line += " — " + why
		}
		body = append(body, "  "+theme.Fit(line, inner-2))
	}
	body = append(body, "", th.Dim.Render(theme.Fit("Restoring anyway overwrites them (a /redo would bring them back).", inner)), "")
	body = append(body, d.row.view(th, []string{"restore anyway · alt+r", "cancel · esc"}, true, inner)...)
	return theme.FrameWith(th.WarnText, "/"+d.op+": files changed outside the agent", theme.ClampBody(body, height, len(body)-1), "←→ choose · enter confirms · alt+r restore · esc cancel", width)
}
