package tui

// The model the user chooses is remembered (package lastmodel) for the
// next start, per project and server, and carried to the chat's next new
// session when no flag, environment variable or config file named one.
// The write happens in a command, never in Update; a failed write is one
// error notice and changes nothing else.

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lastmodel"
)

// rememberModel writes name as the last model chosen in dir on cfg's
// server.
func rememberModel(cfg *config.Config, dir, name string) tea.Cmd {
	if cfg == nil || cfg.DataDir == "" || name == "" {
		return nil
	}
	dataDir, baseURL := cfg.DataDir, cfg.BaseURL
	return func() tea.Msg {
		if err := lastmodel.Save(dataDir, dir, baseURL, name); err != nil {
			return opFailedMsg{What: "model " + name + " not remembered", Err: err}
		}
		return modelRememberedMsg{}
	}
}

// modelRememberedMsg says the choice is written: nothing to do, but it
// tells whoever waits for the next message (the tests) that it is.
type modelRememberedMsg struct{}

// carryModel makes name, just switched to in the open session, the model
// of the chat's next new session too (unless the user's configuration
// names one), and remembers it.
func carryModel(m *Model, name string) tea.Cmd {
	cfg := m.opt.Loop.Config
	if cfg == nil {
		return nil
	}
	if !cfg.ModelConfigured {
		c := *cfg
		c.Model, c.ModelConfigured = name, true
		m.opt.Loop.Config = &c
		cfg = &c
	}
	return rememberModel(cfg, m.opt.Loop.Dir, name)
}
