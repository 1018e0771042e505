package tui

// The pickers of /sessions and /model (overlay.Picker): what fills them
// and what a choice does (the session search is sessionsearch.go).

import (
	"context"
	"fmt"
	"sort"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// pickerDrawer puts an overlay.Picker in the chat's drawer slot: it fills
// the picker from the loaders' messages (load) and acts on the choice.
type pickerDrawer struct {
	*overlay.Picker
	choose func(m *Model, value string) tea.Cmd
	// models: the /model picker (else the sessions picker, if it loads);
	// firstRun marks the picker of a session without a model.
	models, firstRun bool
	// said is what the last rename or delete said, shown once the list
	// is loaded again.
	said string
	// then, when set, runs after a model is chosen for a session that had
	// none: it sends the message that opened the picker.
	then func(m *Model) tea.Cmd
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

func newSessionPicker(m *Model) *pickerDrawer {
	p := overlay.NewPicker("Sessions", nil).Loading().Searchable(sessionSearcher(m.opt.Loop.Store, m.opt.Loop.Config, m.opt.Loop.Dir, m.sess.ID)).Manageable()
	return &pickerDrawer{Picker: p, choose: func(m *Model, id string) tea.Cmd {
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

func newModelPicker(title string) *pickerDrawer {
	p := overlay.NewPicker(title, nil).Loading().AcceptTyped()
	return &pickerDrawer{Picker: p, models: true, choose: func(m *Model, name string) tea.Cmd {
		// A session with no model chosen takes any choice, the name the
		// picker marks current too: otherwise that choice does nothing and
		// the next send opens the picker again.
		if name == sessionModel(m.sess, m.opt.Loop.Config) && !needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
			return nil
		}
		return m.switchModel(name, "")
	}}
}

// pickerOn is a picker drawer of entries that calls choose with the
// value chosen.
func pickerOn(title string, entries []overlay.PickerEntry, choose func(m *Model, value string) tea.Cmd) *pickerDrawer {
	return &pickerDrawer{Picker: overlay.NewPicker(title, entries), choose: choose}
}

// load fills the picker in the background.
func (p *pickerDrawer) load(m *Model) tea.Cmd {
	st := m.opt.Loop.Store
	dir := m.opt.Loop.Dir
	if !p.models {
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

func (p *pickerDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	switch msg := msg.(type) {
	case sessionsLoadedMsg:
		var entries []overlay.PickerEntry
		for _, s := range msg.list {
			entries = append(entries, sessionEntry(m.opt.Loop.Config, s, m.sess.ID))
		}
		p.Loaded(entries, p.said, msg.err)
		p.said = ""
		return drawerKeep, nil
	case sessionActedMsg: // sessionmanage.go
		p.said = msg.note
		return drawerKeep, p.load(m)
	case modelsLoadedMsg:
		if p.firstRun {
			var served []string
			for _, n := range msg.names {
				if msg.served[n] {
					served = append(served, n)
				}
			}
			if cmd, ok := m.chooseSole(served); ok {
				return drawerClose, tea.Batch(cmd, p.proceed(m))
			}
		}
		var entries []overlay.PickerEntry
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
			entries = append(entries, overlay.PickerEntry{Value: n, Label: termsafe.Strip(n), Detail: detail, Current: n == sessionModel(m.sess, m.opt.Loop.Config)})
		}
		p.Loaded(entries, msg.note, nil)
		return drawerKeep, nil
	}
	res, cmd := p.Update(chatHost{m}, msg)
	if a, ok := p.TakeAction(); ok {
		note, act := sessionAction(m.opt.Loop.Store, m.sess.ID, m.opt.DeleteSession, a)
		p.Say(note)
		return res, tea.Batch(cmd, act)
	}
	if v, ok := p.Chosen(); ok {
		chosen := p.choose(m, v)
		return drawerClose, tea.Batch(cmd, chosen, p.proceed(m))
	}
	return res, cmd
}

// proceed runs then once the session has its model (never while it
// still has none, so a choice cannot loop back to the picker).
func (p *pickerDrawer) proceed(m *Model) tea.Cmd {
	if p.then == nil || needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
		return nil
	}
	then := p.then
	p.then = nil
	m.drawer = nil // closed before the send, which may open another
	return then(m)
}

func (p *pickerDrawer) view(m *Model, width, height int) []string {
	return p.View(chatHost{m}, width, height)
}
