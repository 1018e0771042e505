package tui

// The focused card is what Ctrl+O expands and Alt+Y copies (copy.go): the
// card or message the user moved to with Alt+↑/Alt+↓, or else the newest
// expandable card on screen (the one just drawn). Its rows carry a bar in the left margin. Alt+O (or
// /expand all) expands or collapses every card at once.

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// expandable reports whether an item can be expanded: tool cards,
// reasoning, compaction cards and long user messages.
func expandable(it item) bool {
	switch it := it.(type) {
	case *toolItem, *reasoningItem, *patchItem:
		return true
	case *compactionItem:
		return it.text != ""
	case *userItem:
		return !it.synthetic && strings.Count(it.text, "\n") >= collapsedUserLines
	}
	return false
}

// focusedItem returns the focused card, or -1 when there is none.
func (c *chatView) focusedItem() int {
	items := c.items
	if c.focus != nil {
		for i, it := range items {
			if it == c.focus {
				return i
			}
		}
		c.focus = nil // gone (a new session)
	}
	// The newest expandable card on screen.
	for r := len(c.rows) - 1; r >= 0; r-- {
		if i := c.rows[r]; i >= 0 && i < len(items) && expandable(items[i]) {
			return i
		}
	}
	return -1
}

// toggleFocused expands or collapses the focused card; in inline mode a
// card already printed is printed again, expanded.
func (m *Model) toggleFocused() tea.Cmd {
	if m.inline {
		cmd, _ := m.inlineKey("ctrl+o")
		return cmd
	}
	if i := m.chat.focusedItem(); i >= 0 {
		m.chat.items[i].toggle()
	}
	return nil
}

// toggleAll expands or collapses every card.
func (rc *renderCtx) toggleAll() {
	rc.expandAll = !rc.expandAll
	rc.gen++
}

// moveFocus moves the focus to the previous (dir < 0) or next card or
// message (selectable), and scrolls it into view.
func (c *chatView) moveFocus(rc *renderCtx, dir int) {
	items := c.items
	i := c.focusedItem()
	if i < 0 {
		i = len(items)
	}
	for j := i + dir; j >= c.printed && j < len(items); j += dir {
		if selectable(items[j]) {
			c.focus = items[j]
			c.reveal(rc, j)
			return
		}
	}
}
