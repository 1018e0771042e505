package tui

// The server's own models: the /model picker lists what the configured
// server offers (GET /v1/models, cached by the provider, 3 s at most)
// before the configured and catalog models. On a custom server with no
// model named anywhere, a new session has no model to send: the picker
// opens before the first send, and a server that lists exactly one model
// has it chosen without asking.

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
)

// listServed asks the server for its models; a provider that cannot list
// gives none. It blocks (up to provider.ModelListTimeout): call it in a
// command.
func listServed(p provider.Provider) ([]string, error) {
	l, ok := p.(provider.ModelLister)
	if !ok {
		return nil, nil
	}
	return l.ListModels(context.Background())
}

// needsModel reports whether the next message would start a session with
// no model chosen: no runner r, a fresh chat, and cfg wants a choice.
func needsModel(r *loop.Runner, fresh bool, cfg *config.Config) bool {
	return r == nil && fresh && cfg != nil && cfg.NeedsModelChoice()
}

// askModel opens the model picker to choose the new session's model.
func (m *Model) askModel() tea.Cmd {
	d := newModelPicker("Pick a model for " + m.opt.Loop.Config.BaseURL)
	d.firstRun = true
	m.drawer = d
	return d.load(m)
}

// chooseSole picks the server's only model for a session that has none.
func (m *Model) chooseSole(served []string) (tea.Cmd, bool) {
	if !needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
		return nil, false
	}
	name, ok := config.SoleServedModel(served)
	if !ok {
		return nil, false
	}
	return m.switchModel(name, fmt.Sprintf("the only model %s offers", m.opt.Loop.Config.BaseURL)), true
}
