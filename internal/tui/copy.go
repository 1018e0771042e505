package tui

// Copy: Alt+Y (or /copy) puts the selected message on the system
// clipboard through OSC 52, the escape sequence that terminals, tmux
// (set-clipboard) and SSH sessions pass on, so it works where the chat's
// own process cannot reach a clipboard. The selected message is the card
// the user moved to with Alt+↑/Alt+↓ (marked ▎), else the newest reply;
// /copy code copies the last code block of it instead. What is copied is
// the text as written (Markdown source, the tool's output), not the
// screen's rendering.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/markdown"
)

// selectable reports whether Alt+↑/Alt+↓ stop on an item: the cards
// Ctrl+O expands, and replies and user messages, which Alt+Y copies.
func selectable(it item) bool {
	switch it := it.(type) {
	case *textItem:
		return true
	case *userItem:
		return !it.synthetic
	}
	return expandable(it)
}

// copyText is the text of an item as written.
func copyText(it item) string {
	switch it := it.(type) {
	case *textItem:
		return it.doc.text()
	case *userItem:
		return it.text
	case *reasoningItem:
		return it.b.String()
	case *toolItem:
		if it.state.Output != "" {
			return it.state.Output
		}
		return it.state.Input
	case *compactionItem:
		if it.text != "" {
			return summaryMarkdown(it.text)
		}
	case *noticeItem:
		return it.text
	}
	return ""
}

// copySource is the item Alt+Y copies: the card the user moved to, else
// the newest reply.
func (c *chatView) copySource() item {
	if c.focus != nil {
		for _, it := range c.items {
			if it == c.focus {
				return it
			}
		}
	}
	for i := len(c.items) - 1; i >= 0; i-- {
		if t, ok := c.items[i].(*textItem); ok && strings.TrimSpace(t.doc.text()) != "" {
			return t
		}
	}
	return nil
}

// copySelected copies the selected message, or with code its last code
// block, and says how many lines went.
func (m *Model) copySelected(code bool) tea.Cmd {
	it := m.chat.copySource()
	text := ""
	if it != nil {
		text = copyText(it)
	}
	what := "message"
	if code {
		what = "code block"
		text = lastCodeBlock(text)
	}
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return m.setFlash(fmt.Sprintf("no %s to copy: alt+↑ selects a message", what), 3*time.Second)
	}
	n := strings.Count(text, "\n") + 1
	return tea.Batch(m.clipboardCmd(text), m.setFlash(fmt.Sprintf("copied %d line%s (%s, OSC 52)", n, plural(n), what), 3*time.Second))
}

// lastCodeBlock returns the content of the last fenced code block of a
// Markdown text ("" when it has none); a fence still open at the end
// counts.
func lastCodeBlock(md string) string {
	var last []string
	var cur []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && markdown.FenceOf(line) != "":
			fence, cur = markdown.FenceOf(line), []string{}
		case fence != "" && closesFence(trimmed, fence):
			last, fence = cur, ""
		case fence != "":
			cur = append(cur, line)
		}
	}
	if fence != "" {
		last = cur
	}
	return strings.Join(last, "\n")
}
