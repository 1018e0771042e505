package overlay

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// choiceRow is the row of buttons a question answers with (the
// permission, doom-loop and MCP dialogs): one highlighted choice that
// ←→ and tab/shift+tab move around (wrapping), Enter on the highlight,
// and a modified shortcut key per choice that answers at once. It owns
// no labels (a dialog may word them from its request) and does no I/O:
// update reports the choice made, the dialog acts on it.
type choiceRow struct {
	n         int            // how many choices
	shortcuts map[string]int // key (as tea.KeyPressMsg.String names it) → choice
	sel       int            // the highlighted choice
}

// noChoice is update's answer for a key that chose nothing.
const noChoice = -1

// shortcut reports whether key answers without focus.
func (c *choiceRow) shortcut(key string) bool {
	_, ok := c.shortcuts[key]
	return ok
}

// update takes a key: a shortcut or Enter returns the choice it makes;
// a move changes the highlight and returns noChoice, as does any other
// key.
func (c *choiceRow) update(key string) int {
	if i, ok := c.shortcuts[key]; ok {
		return i
	}
	switch key {
	case "left", "shift+tab":
		c.sel = (c.sel + c.n - 1) % c.n
	case "right", "tab":
		c.sel = (c.sel + 1) % c.n
	case "enter":
		return c.sel
	}
	return noChoice
}

// view lays the labels out as buttons, the highlight shown only while
// the question has the keyboard.
func (c *choiceRow) view(th *theme.Theme, labels []string, focused bool, width int) []string {
	sel := -1
	if focused {
		sel = c.sel
	}
	return buttons(th, labels, sel, width)
}

// buttons lays out choices, wrapping them when the line is narrow; sel
// is highlighted (-1 for none).
func buttons(th *theme.Theme, labels []string, sel, width int) []string {
	var out []string
	line := ""
	for i, l := range labels {
		b := " " + l + " "
		if i == sel {
			b = th.Selected.Render(b)
		} else {
			b = th.AccentText.Render(b)
		}
		if line != "" && ansi.StringWidth(line)+ansi.StringWidth(b)+1 > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += b
	}
	return append(out, line)
}
