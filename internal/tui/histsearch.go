package tui

// Ctrl+R: a reverse incremental search over the messages sent before (the
// editor's history, which a resumed session fills from its messages).
// Typing narrows the search (case-insensitive, anywhere in a message), and
// the editor shows the newest match; Ctrl+R again goes to the next older
// one; Enter takes the match into the editor to edit or send; Esc cancels
// and gives back what the editor held. Any other key takes the match and
// then does what it does, as in a shell.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// historySearch is the search's state; its zero value is not searching.
type historySearch struct {
	active bool
	query  string
	at     int    // the history index shown, -1 when nothing matches
	saved  string // the editor's text before the search
}

// start begins a search over e's history.
func (s *historySearch) start(e *editor) {
	*s = historySearch{active: true, at: -1, saved: e.value()}
}

// key handles k while searching; false when not searching or when k ends
// the search and should then do what it does.
func (s *historySearch) key(e *editor, k tea.KeyPressMsg) bool {
	if !s.active {
		return false
	}
	switch k.String() {
	case "ctrl+r":
		if s.at > 0 {
			s.find(e, s.at-1)
		}
		return true
	case "enter":
		s.active = false
		e.histIdx = len(e.history)
		return true
	case "esc", "ctrl+g":
		s.active = false
		e.ta.SetValue(s.saved)
		return true
	case "backspace":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
		}
		s.find(e, len(e.history)-1)
		return true
	}
	if k.Text != "" && k.Mod&^tea.ModShift == 0 {
		s.query += strings.Map(dropControl, k.Text)
		from := len(e.history) - 1
		if s.at >= 0 { // the match shown stays while it still matches
			from = s.at
		}
		s.find(e, from)
		return true
	}
	s.active = false
	e.histIdx = len(e.history)
	return false
}

// find shows the newest entry at or before index from that matches the
// query; with no match the editor keeps what it shows.
func (s *historySearch) find(e *editor, from int) {
	q := strings.ToLower(s.query)
	for i := min(from, len(e.history)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(e.history[i]), q) {
			s.at = i
			e.ta.SetValue(e.history[i])
			return
		}
	}
	s.at = -1
}

// dropControl drops control characters from typed text.
func dropControl(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}

// line is the search's status line above the editor.
func (s *historySearch) line(dim lipgloss.Style) string {
	state := "reverse-i-search"
	if s.at < 0 && s.query != "" {
		state = "failing reverse-i-search"
	}
	return dim.Render(fmt.Sprintf("(%s)`", state)) + s.query +
		dim.Render("' · enter takes · ctrl+r older · esc cancels")
}
