// Package overlay holds the chat's drawers and dialogs: the panels that
// open between the conversation and the editor, each a small update/view
// type. Update never blocks and does no I/O (it returns a tea.Cmd). What
// an overlay does to the chat comes back as a Result (keep, close, pass
// the key on), as a choice the chat reads once it closes (Picker.Chosen,
// TurnPicker.Choice, OutsideDialog.Restore, SummaryEditor.Saved), or as a
// message named for what happened (MCPChosenMsg, PinDoneMsg, OpFailedMsg).
//
// An overlay sees the chat only through Host: its theme, its width, a
// timer and an editor made as the chat makes its own. Everything else is
// passed in: when the overlay is made (a question's request, a picker's
// entries) or with each Update and View (the queue as it stands, the pins,
// the runner's edits of them as QueueOps and PinOps, ContextFacts). The
// package never imports internal/tui (tui imports it) and draws with
// internal/tui/theme.
//
// Where things live:
//   - overlay.go: Result, Host, Drawer;
//   - choicerow.go: the row of buttons a question answers with;
//   - questions.go: the loop's open questions, oldest first, and the grace
//     that keeps a question from taking keys meant for the editor;
//   - gate.go: the Enter gate of a focused question;
//   - permission.go, doom.go, mcp.go, outside.go: the questions;
//   - picker.go, search.go, turnpicker.go: the filterable pickers;
//   - listeditor.go, queue.go, pins.go, memory.go: the drawers that edit a
//     list (memory.go, /memory, reads and writes the memories itself);
//   - context.go, help.go (and LinesDrawer), summaryedit.go: the /context,
//     /help, preview and /summary edit panels.
package overlay

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// Result tells the chat what to do after an overlay's Update.
type Result int

const (
	Keep  Result = iota // the overlay handled it
	Close               // close the overlay
	Pass                // not the overlay's: close it and let the editor have the key
)

// Host is what an overlay reads of the chat.
type Host interface {
	// Theme is the styles of the current background.
	Theme() *theme.Theme
	// Width is the screen's width in cells.
	Width() int
	// After delivers msg after d, unless the chat closes first.
	After(d time.Duration, msg tea.Msg) tea.Cmd
	// TextArea is an editor of text, width cells wide and at most
	// maxHeight lines high, that edits as the chat's editor does.
	TextArea(text string, width, maxHeight int) TextArea
}

// Drawer is a panel the chat gives keys while it is open.
type Drawer interface {
	Update(h Host, msg tea.Msg) (Result, tea.Cmd)
	// View renders at most height lines of width cells.
	View(h Host, width, height int) []string
}
