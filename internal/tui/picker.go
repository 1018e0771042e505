package tui

// The filterable pickers of /sessions and /model (the session search is
// sessionsearch.go).

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// pickerEntry is one choice of a picker.
type pickerEntry struct {
	value, label, detail string
	current              bool
	// snippet, under the entry, is where a session search matched.
	snippet string
}

// picker is a filterable list: /sessions and /model.
type picker struct {
	title   string
	entries []pickerEntry
	filter  string
	sel     int
	loading bool
	err     error
	// free accepts the typed filter as a value when nothing matches.
	free bool
	// note is shown above the entries (the server's models could not be
	// listed); firstRun marks the picker of a session without a model.
	note     string
	firstRun bool
	choose   func(m *Model, value string) tea.Cmd
	// search, for /sessions, searches the sessions' history for the
	// filter (sessionsearch.go).
	search *sessionSearch
}

type sessionsLoadedMsg struct {
	list []message.Session
	err  error
}

type modelsLoadedMsg struct {
	names  []string
	served map[string]bool // the names the server lists
	note   string
}

func newSessionPicker() *picker {
	return &picker{title: "Sessions", loading: true, search: &sessionSearch{}, choose: func(m *Model, id string) tea.Cmd {
		if id == m.sess.ID {
			return nil
		}
		if cmd := m.refuseSwitch(); cmd != nil {
			return cmd
		}
		m.resetConversation()
		return m.openSession(id)
	}}
}

func newModelPicker(m *Model) *picker {
	return &picker{title: "Model", loading: true, free: true, choose: func(m *Model, name string) tea.Cmd {
		if name == sessionModel(m.sess, m.opt.Loop.Config) {
			return nil
		}
		return m.switchModel(name, "")
	}}
}

// load fills the picker in the background.
func (p *picker) load(m *Model) tea.Cmd {
	st := m.opt.Loop.Store
	dir := m.opt.Loop.Dir
	if p.title == "Sessions" {
		return func() tea.Msg {
			if st == nil {
				return sessionsLoadedMsg{}
			}
			list, err := st.ListSessions(context.Background(), dir)
			return sessionsLoadedMsg{list: list, err: err}
		}
	}
	cfg := m.opt.Loop.Config
	current := sessionModel(m.sess, m.opt.Loop.Config)
	if needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
		current = "" // the default is not a choice the user made
	}
	prov := m.opt.Loop.Provider
	return func() tea.Msg {
		seen := map[string]bool{}
		var names []string
		add := func(n string) {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		served, err := listServed(prov)
		msg := modelsLoadedMsg{served: map[string]bool{}}
		if err != nil {
			msg.note = fmt.Sprintf("the server's models could not be listed (%v): showing the catalog", err)
		}
		for _, n := range served {
			msg.served[n] = true
			add(n)
		}
		add(current)
		if cfg != nil {
			add(cfg.Model)
			var configured []string
			for n := range cfg.Models {
				configured = append(configured, n)
			}
			sort.Strings(configured)
			for _, n := range configured {
				add(n)
			}
			add(cfg.SmallModel)
		}
		if st != nil {
			if list, err := st.ListSessions(context.Background(), ""); err == nil {
				for _, s := range list {
					add(s.Model)
				}
			}
		}
		for _, n := range config.CatalogModels() {
			add(n)
		}
		msg.names = names
		return msg
	}
}

func (p *picker) visible() []pickerEntry {
	if p.filter == "" {
		return p.entries
	}
	f := strings.ToLower(p.filter)
	var out []pickerEntry
	for _, e := range p.entries {
		if strings.Contains(strings.ToLower(e.label+" "+e.value), f) {
			out = append(out, e)
		}
	}
	if p.searching() {
		return p.searchVisible(out)
	}
	return out
}

func (p *picker) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	switch msg := msg.(type) {
	case sessionsLoadedMsg:
		p.loading, p.err = false, msg.err
		p.entries = nil
		for _, s := range msg.list {
			p.entries = append(p.entries, sessionEntry(m.opt.Loop.Config, s, m.sess.ID))
		}
		return drawerKeep, nil
	case sessionSearchDueMsg, sessionSearchMsg:
		return drawerKeep, p.searchUpdate(m, msg)
	case modelsLoadedMsg:
		p.loading = false
		p.entries = nil
		p.note = msg.note
		if p.firstRun {
			var served []string
			for _, n := range msg.names {
				if msg.served[n] {
					served = append(served, n)
				}
			}
			if cmd, ok := m.chooseSole(served); ok {
				return drawerClose, cmd
			}
		}
		for _, n := range msg.names {
			detail := ""
			if cfg := m.opt.Loop.Config; cfg != nil {
				if info, known := cfg.ModelInfo(n); known {
					detail = fmt.Sprintf("%s window", formatTokens(info.ContextWindow))
				} else {
					detail = "unknown limits"
				}
			}
			if msg.served[n] {
				detail = "served · " + detail
			}
			p.entries = append(p.entries, pickerEntry{value: n, label: termsafe.Strip(n), detail: detail, current: n == sessionModel(m.sess, m.opt.Loop.Config)})
		}
		return drawerKeep, nil
	case tea.PasteMsg:
		p.filter += strings.ReplaceAll(msg.Content, "\n", " ")
		p.sel = 0
		return drawerKeep, p.filterChanged()
	case tea.KeyPressMsg:
		vis := p.visible()
		switch msg.String() {
		case "esc":
			return drawerClose, nil
		case "up", "ctrl+p":
			p.sel = max(0, p.sel-1)
		case "down", "ctrl+n":
			p.sel = min(max(0, len(vis)-1), p.sel+1)
		case "enter":
			if len(vis) > 0 {
				return drawerClose, p.choose(m, vis[min(p.sel, len(vis)-1)].value)
			}
			if p.free && strings.TrimSpace(p.filter) != "" {
				return drawerClose, p.choose(m, strings.TrimSpace(p.filter))
			}
		case "backspace":
			if p.filter != "" {
				r := []rune(p.filter)
				p.filter = string(r[:len(r)-1])
				p.sel = 0
				return drawerKeep, p.filterChanged()
			}
		default:
			if msg.Text != "" {
				p.filter += msg.Text
				p.sel = 0
				return drawerKeep, p.filterChanged()
			}
		}
	}
	return drawerKeep, nil
}

func (p *picker) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	body := []string{th.AccentText.Render("filter › ") + p.filter}
	if p.note != "" {
		body = append(body, th.Dim.Render(fit(p.note, inner)))
	}
	vis := p.visible()
	switch {
	case p.loading:
		body = append(body, th.Dim.Render("loading…"))
	case p.err != nil:
		body = append(body, th.ErrorText.Render(p.err.Error()))
	case p.search != nil && p.search.err != nil && p.filter != "":
		body = append(body, th.ErrorText.Render("search: "+p.search.err.Error()))
	case len(vis) == 0 && p.search != nil && p.filter != "" && p.search.query != p.filter:
		body = append(body, th.Dim.Render("searching…"))
	case len(vis) == 0 && p.search != nil && p.filter != "":
		body = append(body, th.Dim.Render("no session mentions "+p.filter))
	case len(vis) == 0 && p.free && p.filter != "":
		body = append(body, th.Dim.Render("enter switches to "+p.filter))
	case len(vis) == 0:
		body = append(body, th.Dim.Render("nothing here yet"))
	}
	var rows []string
	selRow := 0
	for i, e := range vis {
		mark := "  "
		if e.current {
			mark = "• "
		}
		label := mark + e.label
		detail := e.detail
		room := inner - ansi.StringWidth(detail) - 2
		if room < 12 {
			detail, room = "", inner
		}
		line := pad(fit(label, room), room)
		if detail != "" {
			line += "  " + th.Dim.Render(detail)
		}
		if i == p.sel {
			line = th.Selected.Render(pad(ansi.Strip(line), inner))
			selRow = len(rows)
		}
		rows = append(rows, line)
		if e.snippet != "" {
			rows = append(rows, th.Dim.Render(fit("    "+e.snippet, inner)))
			if i == p.sel {
				selRow++
			}
		}
	}
	rows = clampBody(rows, height-len(body), selRow)
	body = append(body, rows...)
	footer := "↑↓ choose · enter open · esc close"
	if p.free {
		footer = "↑↓ choose · enter switch · type a name · esc"
	}
	return frameLines(th, p.title, body, footer, width)
}
