package tui

// Start-up: the first frame needs no database. A new chat's welcome screen
// comes from the configuration, so when Options.OpenStore is set the
// database opens behind the first frame, as a command; whatever needs it
// (opening a session, the first send) waits for it in its own command,
// never in Update.

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/storage"
)

// errChatClosed is why a database still opening when the chat closed is
// not there.
var errChatClosed = errors.New("the chat closed")

// storeFuture is the database: open from the start (Options.Loop.Store),
// or opening behind the first frame (Options.OpenStore).
type storeFuture struct {
	mu      sync.Mutex
	started bool // the open has begun (or the chat gave up on it)
	done    chan struct{}
	st      *storage.Store
	err     error
	// owned: the chat opened the store, so Close closes it.
	owned bool
}

func newStoreFuture(opt Options) *storeFuture {
	f := &storeFuture{done: make(chan struct{})}
	if opt.Loop.Store != nil || opt.OpenStore == nil {
		f.st, f.started = opt.Loop.Store, true
		close(f.done)
	}
	return f
}

// ready reports whether the store is there (or failed to open).
func (f *storeFuture) ready() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// start claims the open; false when it is done or given up.
func (f *storeFuture) start() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ok := !f.started
	f.started = true
	return ok
}

// abandon gives up an open that has not begun, so that nothing waits for
// it.
func (f *storeFuture) abandon() {
	if f.start() {
		f.err = errChatClosed
		close(f.done)
	}
}

// wait blocks until the store is open; call it only from a command.
func (f *storeFuture) wait() (*storage.Store, error) {
	<-f.done
	return f.st, f.err
}

// storeOpenedMsg says the database opened behind the first frame.
type storeOpenedMsg struct {
	st  *storage.Store
	err error
}

// open opens the database with open (Options.OpenStore), unless it is
// open already. The chat's close waits for it (through slot), and closes
// what it opened (closeOwned).
func (f *storeFuture) open(open func(context.Context) (*storage.Store, error), slot *runnerSlot) tea.Cmd {
	if f.ready() {
		return nil
	}
	return func() tea.Msg {
		if !slot.begin() {
			return nil // closed: Close abandoned the open
		}
		defer slot.end()
		if !f.start() {
			return nil
		}
		f.st, f.err = open(context.Background())
		f.owned = f.err == nil
		close(f.done)
		return storeOpenedMsg{st: f.st, err: f.err}
	}
}

// handleStoreOpened makes the store the chat's; a database that cannot be
// opened ends the chat with the error, as it did before the first frame.
func (m *Model) handleStoreOpened(msg storeOpenedMsg) tea.Cmd {
	if msg.err != nil {
		m.fatal = msg.err
		return tea.Quit
	}
	m.opt.Loop.Store = msg.st
	return nil
}

// closeOwned closes the store if the chat opened it itself.
func (f *storeFuture) closeOwned() {
	if f.ready() && f.owned {
		_ = f.st.Close()
	}
}
