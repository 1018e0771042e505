package tui

// todopanel.go: the model's todo list (internal/todo) as a compact panel
// above the editor.
//
// Contract. The panel shows the list the last todo_write that succeeded
// set: live from its tool part, and on opening or rewinding a session
// from the history shown (buildHistory replays the parts, rewound
// messages left out, so the newest list wins). Expanded, it is a header
// ("todo 1/3 done · ctrl+t hides") and one line per item, at most
// todoPanelMaxItems (the in-progress item is always among them);
// collapsed, the header alone with the item in progress. An empty list,
// or one with every item done once the turn is over, shows nothing. The
// items' text is the model's: it is stripped of terminal escapes and cut
// to the width. It lives in the editor (editor.todo), so the chat's Model
// keeps its fields; the layout counts its lines.

import (
	"fmt"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/todo"
)

// toggleTodoKey collapses and expands the panel.
const toggleTodoKey = "ctrl+t"

// todoPanelMaxItems bounds the lines an expanded panel takes.
const todoPanelMaxItems = 6

// todoPanelChatRows are the rows the chat keeps at least: the panel is
// left out of a screen too short for it.
const todoPanelChatRows = 4

// todoPanel is the list shown and whether it is collapsed.
type todoPanel struct {
	list      todo.List
	collapsed bool
}

// set shows l (nil: nothing).
func (p *todoPanel) set(l todo.List) { p.list = l }

// toggle collapses or expands the panel; false when there is none.
func (p *todoPanel) toggle() bool {
	if len(p.list) == 0 {
		return false
	}
	p.collapsed = !p.collapsed
	return true
}

// lines renders the panel at width; busy keeps a finished list on screen
// until the turn ends.
func (p *todoPanel) lines(th *theme, width int, busy bool) []string {
	pending, inProgress, done := p.list.Counts()
	if len(p.list) == 0 || (!busy && pending+inProgress == 0) {
		return nil
	}
	current := -1
	for i, it := range p.list {
		if it.Status == todo.InProgress {
			current = i
		}
	}
	head := fmt.Sprintf(" todo %d/%d done", done, len(p.list))
	hint := " · " + toggleTodoKey + " hides"
	if p.collapsed {
		hint = " · " + toggleTodoKey + " shows"
		if current >= 0 {
			head += " · now: " + oneLine(termsafe.Strip(p.list[current].Text), width)
		}
		return []string{fit(th.AccentText.Render(head)+th.Dim.Render(hint), width)}
	}
	out := []string{fit(th.AccentText.Render(head)+th.Dim.Render(hint), width)}
	from := 0
	if len(p.list) > todoPanelMaxItems && current >= todoPanelMaxItems-1 {
		from = min(current-todoPanelMaxItems/2, len(p.list)-todoPanelMaxItems)
	}
	to := min(len(p.list), from+todoPanelMaxItems)
	for _, it := range p.list[from:to] {
		text := oneLine(termsafe.Strip(it.Text), width)
		var line string
		switch it.Status {
		case todo.Done:
			line = th.Dim.Render("   ✓ " + text)
		case todo.InProgress:
			line = th.Bold.Render("   ▸ " + text)
		default:
			line = "   ○ " + text
		}
		out = append(out, fit(line, width))
	}
	if rest := len(p.list) - (to - from); rest > 0 {
		out = append(out, th.Dim.Render(fmt.Sprintf("   … %d more", rest)))
	}
	return out
}
