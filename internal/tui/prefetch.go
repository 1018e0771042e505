package tui

// The next turn's environment (git status, AGENTS.md: the dynamic system
// prompt) is gathered when the user starts typing a message, so that git
// does not sit between Enter and the request, and the provider opens its
// connection then too (provider.Preconnector). A garbage collection that
// would come soon is made then as well (gcahead.go). The loop uses what was
// gathered when it is recent (loop.PrefetchEnvironment); a new chat hands
// it to the session its first message opens.

import (
	"context"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
)

// envPrefetch is the chat's work on the way from a message's first key
// to its request on the wire: it starts the gathering once per message,
// opens a new chat's session ahead (earlyopen.go), collects ahead
// (gcahead.go), and holds the frame after Enter until the send is out
// (framehold.go). Its zero value has gathered nothing.
type envPrefetch struct {
	typing  bool                     // the editor holds text
	pending *loop.PendingEnvironment // gathered for a new chat's first session
	early   *earlyOpen               // its session, opened ahead (earlyopen.go)
	ahead   <-chan struct{}          // the first key's collection ahead, closed when over (gcahead.go)
	hold    frameHold                // the frame before Enter, shown until the send is out (framehold.go)
}

// start starts the gathering on the editor's first character (empty: the
// editor is empty again): through the session's runner r, or for a fresh
// chat in dir, with prov preconnecting. It returns at once.
func (p *envPrefetch) start(empty bool, r *loop.Runner, fresh bool, dir string, prov provider.Provider) {
	if empty {
		p.typing = false
		return
	}
	if p.typing {
		if c := collectAhead(); c != nil { // gcahead.go: each update while a message is typed
			p.ahead = c
		}
		return
	}
	p.typing = true
	// The local time zone, for the first request's date (zonewarm.go).
	warmZone()

	defer func() { p.ahead = collectAheadAfterQuiet() }() // after the work started here
	switch {
	case r != nil:
		r.PrefetchEnvironment()
	case fresh:
		// The session's runner does both once it exists; until then the
		// chat starts them for it.
		if p.pending == nil && dir != "" {
			p.pending = loop.GatherEnvironment(context.Background(), dir)
		}
		if pc, ok := prov.(provider.Preconnector); ok {
			pc.Preconnect() // the connection opens while the message is typed
		}
	}
}

// take is the environment gathered for a new session (nil for none).
func (p *envPrefetch) take() *loop.PendingEnvironment {
	env := p.pending
	p.pending = nil
	return env
}
