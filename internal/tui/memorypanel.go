package tui

// /memory: the memories panel (overlay.MemoryPanel) in the chat's drawer
// slot. The panel reads and writes the memories itself, off the Update
// loop, through the chat's database (waiting for it when it is still
// opening: startup.go); its messages come back as a controlMsg that
// reaches the panel only while it is the one open. A chat that closes
// waits for a read or write under way (the runner slot) before the
// database closes.

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/memory"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// memoryDrawer is the /memory panel in the chat's drawer slot.
type memoryDrawer struct{ *overlay.MemoryPanel }

// openMemoryPanel is /memory: the panel of the memories a session in the
// chat's directory sees, reading them.
func openMemoryPanel(m *Model) (drawer, tea.Cmd) {
	store := m.store
	var secrets []string
	if cfg := m.opt.Loop.Config; cfg != nil && cfg.APIKey != "" {
		secrets = append(secrets, cfg.APIKey)
	}
	p := overlay.NewMemoryPanel(func(context.Context) (overlay.MemoryStore, error) {
		st, err := store.wait()
		if err == nil && st == nil {
			err = errors.New("no database")
		}
		if err != nil {
			return nil, err
		}
		return st.Memories(), nil
	}, memory.Scopes(m.opt.Loop.Dir), secrets...)
	d := memoryDrawer{p}
	return d, d.wrap(m.slot, p.Load())
}

func (d memoryDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	res, cmd := d.Update(chatHost{m}, msg)
	return res, d.wrap(m.slot, cmd)
}

func (d memoryDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, width, height)
}

// wrap runs the panel's command inside the runner slot (the chat's close
// waits for it) and addresses its MemoryListedMsg to this panel.
func (d memoryDrawer) wrap(slot *runnerSlot, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		if !slot.begin() {
			return nil // the chat closed first
		}
		defer slot.end()
		msg := cmd()
		if listed, ok := msg.(overlay.MemoryListedMsg); ok {
			return memoryListedMsg{panel: d.MemoryPanel, MemoryListedMsg: listed}
		}
		return msg
	}
}

// memoryListedMsg is a panel's read of the memories, for that panel.
type memoryListedMsg struct {
	panel *overlay.MemoryPanel
	overlay.MemoryListedMsg
}

func (msg memoryListedMsg) apply(m *Model) tea.Cmd {
	d, ok := m.drawer.(memoryDrawer)
	if !ok || d.MemoryPanel != msg.panel {
		return nil // closed, or another panel since
	}
	_, cmd := d.update(m, msg.MemoryListedMsg)
	return cmd
}
