package loop

// events.go: the loop's own events. Row changes reach the store's broker
// from the store itself; the loop's events are published here, and every
// event goes to Options.Observer.

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// emitter sends the session's events to the observer and the broker.
type emitter struct {
	store    *storage.Store
	observer func(message.Event)
	session  string
	// keep keeps a note for Runner.Notes (sessionState.addNote).
	keep func(string)
}

// emit sends a loop event to the observer, and those the store's broker
// carries to other readers to the broker.
func (e emitter) emit(ev message.Event) {
	switch ev.Type {
	case message.EventStatus, message.EventRetrying, message.EventPruned, message.EventCompacted, message.EventError, message.EventCompactionNear, message.EventNote, message.EventCheckpointProgress:
		e.store.Publish(ev)
	}
	if e.observer != nil {
		e.observer(ev)
	}
}

// error reports an error of the turn.
func (e emitter) error(msg string) {
	e.emit(message.Event{Type: message.EventError, SessionID: e.session, Err: msg})
}

// queue announces the queue as it is now.
func (e emitter) queue(ctx context.Context) {
	q, err := e.store.ListQueue(ctx, e.session)
	if err != nil {
		return
	}
	e.emit(message.Event{Type: message.EventQueueChanged, SessionID: e.session, Queue: q})
}

// note reports something that is not an error of the turn (about
// checkpoints, a skipped instruction file): kept for Notes and sent to the
// observer.
func (e emitter) note(msg string) {
	e.keep(msg)
	e.emit(message.Event{Type: message.EventNote, SessionID: e.session, Note: msg})
}
