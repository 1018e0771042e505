package tui

// The next turn's environment (git status, AGENTS.md: the dynamic system
// prompt) is gathered when the user starts typing a message, so that git
// does not sit between Enter and the request, and the provider opens its
// connection then too (provider.Preconnector). The loop uses what was
// gathered when it is recent (loop.PrefetchEnvironment); a new chat hands
// it to the session its first message opens.

import (
	"context"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
)

// prefetchEnvironment starts the gathering once per message, on the
// editor's first character. It returns at once.
func (m *Model) prefetchEnvironment() {
	if m.editor.empty() {
		m.typing = false
		return
	}
	if m.typing {
		return
	}
	m.typing = true
	switch {
	case m.runner != nil:
		m.runner.PrefetchEnvironment()
	case m.fresh:
		// The session's runner does both once it exists; until then the
		// chat starts them for it.
		if m.pendingEnv == nil && m.opt.Loop.Dir != "" {
			m.pendingEnv = loop.GatherEnvironment(context.Background(), m.opt.Loop.Dir)
		}
		if pc, ok := m.opt.Loop.Provider.(provider.Preconnector); ok {
			pc.Preconnect() // the connection opens while the message is typed
		}
	}
}

// takePendingEnvironment is the environment gathered for a new session.
func (m *Model) takePendingEnvironment() *loop.PendingEnvironment {
	p := m.pendingEnv
	m.pendingEnv = nil
	return p
}
