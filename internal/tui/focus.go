package tui

// The focused card is what Ctrl+O expands: the card the user moved to
// with Alt+↑/Alt+↓, or else the newest expandable card on screen (the
// one just drawn). Its rows carry a bar in the left margin. Alt+O (or
// /expand all) expands or collapses every card at once.

import (
	"strings"
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
func (m *Model) focusedItem() int {
	items := m.chat.items
	if m.focus != nil {
		for i, it := range items {
			if it == m.focus {
				return i
			}
		}
		m.focus = nil // gone (a new session)
	}
	// The newest expandable card on screen.
	for r := len(m.chat.rows) - 1; r >= 0; r-- {
		if i := m.chat.rows[r]; i >= 0 && i < len(items) && expandable(items[i]) {
			return i
		}
	}
	return -1
}

// toggleFocused expands or collapses the focused card.
func (m *Model) toggleFocused() {
	if i := m.focusedItem(); i >= 0 {
		m.chat.items[i].toggle()
	}
}

// toggleAll expands or collapses every card.
func (m *Model) toggleAll() {
	m.expandAll = !m.expandAll
	m.rc.expandAll = m.expandAll
	m.rc.gen++
}

// moveFocus moves the focus to the previous (dir < 0) or next expandable
// card, and scrolls it into view.
func (m *Model) moveFocus(dir int) {
	items := m.chat.items
	i := m.focusedItem()
	if i < 0 {
		i = len(items)
	}
	for j := i + dir; j >= 0 && j < len(items); j += dir {
		if expandable(items[j]) {
			m.focus = items[j]
			m.chat.reveal(&m.rc, j)
			return
		}
	}
}
