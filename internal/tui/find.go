package tui

// Transcript search: Ctrl+F (or /find TEXT) opens a search line over the
// editor. Every line of the conversation as drawn is searched, ignoring
// case; the view jumps to the newest hit, and ↑/Enter and ↓ walk to
// older and newer ones. Esc closes the search and leaves the view where
// it is.

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// findDrawer is the search line.
type findDrawer struct {
	input textinput.Model
	query string    // the query the hits are for
	hits  []chatPos // oldest first
	cur   int       // the hit shown
	line  string    // the text of the hit shown
}

// openFind opens the search, with a query when one is given.
func (m *Model) openFind(query string) tea.Cmd {
	if m.inline {
		cmd, _ := m.inlineKey("ctrl+f")
		return cmd
	}
	ti := textinput.New()
	ti.Prompt = "find › "
	ti.Placeholder = "text in the conversation"
	ti.SetWidth(max(10, m.width-30))
	ti.SetValue(query)
	cmd := ti.Focus()
	d := &findDrawer{input: ti}
	m.drawer = d
	d.search(m)
	return tea.Batch(cmd, loadAllEarlier(m)) // earlier.go: the messages above the tail
}

// search finds the query in the conversation and shows the newest hit.
func (d *findDrawer) search(m *Model) {
	q := strings.ToLower(strings.TrimSpace(d.input.Value()))
	if q == d.query {
		return
	}
	d.query, d.hits, d.cur, d.line = q, nil, -1, ""
	if q == "" {
		return
	}
	for i, it := range m.chat.items {
		for off, l := range it.lines(&m.rc) {
			if strings.Contains(strings.ToLower(ansi.Strip(l)), q) {
				d.hits = append(d.hits, chatPos{idx: i, off: off})
			}
		}
	}
	d.show(m, len(d.hits)-1)
}

// show jumps to hit i.
func (d *findDrawer) show(m *Model, i int) {
	if i < 0 || i >= len(d.hits) {
		return
	}
	d.cur = i
	h := d.hits[i]
	m.chat.top = chatPos{idx: h.idx, off: max(0, h.off-2)}
	m.chat.follow = false
	if ls := m.chat.items[h.idx].lines(&m.rc); h.off < len(ls) {
		d.line = strings.TrimSpace(ansi.Strip(ls[h.off]))
	}
}

func (d *findDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc", "ctrl+f":
			return drawerClose, nil
		case "enter", "up", "ctrl+p":
			d.show(m, d.cur-1)
			return drawerKeep, nil
		case "down", "ctrl+n":
			d.show(m, d.cur+1)
			return drawerKeep, nil
		}
	}
	if p, ok := msg.(tea.PasteMsg); ok {
		msg = tea.PasteMsg{Content: strings.Join(strings.Fields(p.Content), " ")}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	d.search(m)
	return drawerKeep, cmd
}

func (d *findDrawer) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	status := th.Dim.Render("type to search the conversation")
	switch {
	case d.query != "" && len(d.hits) == 0:
		status = th.WarnText.Render("no match")
	case len(d.hits) > 0:
		status = th.AccentText.Render(fmt.Sprintf("match %d of %d", d.cur+1, len(d.hits))) + th.Dim.Render(": ") + fit(d.line, max(10, inner-20))
	}
	return frameLines(th, "Find", []string{d.input.View(), status}, "↑/enter older · ↓ newer · esc close", width)
}
