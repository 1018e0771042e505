package loop

// openwindow.go: a session opens by reading what its next request sends
// (issue 36, "open what you send"). Open reads the history from the
// point openFrom names on (storage.Window.Load): the newest summary in
// force with its compaction's marker, kept head and kept tail, and the
// latest todo list, so that every request, estimate and compaction
// decision made from the window is what the whole history makes (the
// oracle: TestOpenWindowSendsWhatTheWholeHistorySends). What lies before
// the window is read on demand by whoever needs everything: History (the
// chat's transcript, rewind's turns, the plan), an undo of the compaction
// and its price (readWhole). After a rewind the history is read whole
// again (checkpointer.reload).

import (
	"context"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/todo"
)

// openFrom is where Open starts reading a history, given its skeleton
// (storage.Window.Load): what VisibleHistory needs (tokens.SentFrom), back
// to the message of the latest todo list, which every request carries.
// "" reads it all.
func openFrom(skeleton []message.Entry) string {
	from := tokens.SentFrom(skeleton)
	if from == "" {
		return ""
	}
	if _, at := todo.LatestIn(skeleton); at != "" {
		from = min(from, at)
	}
	return from
}

// openHistory reads what Open holds of a session's history.
func openHistory(ctx context.Context, st *storage.Store, sessionID string) ([]message.Entry, error) {
	return st.Window().Load(ctx, sessionID, openFrom)
}

// wholeHistory returns h, a session's history as Open read it and the
// loop extended it, with the stored messages before its first one in
// front: the whole history. h itself when nothing lies before it, or when
// the older messages cannot be read (err says why).
func wholeHistory(ctx context.Context, st *storage.Store, sessionID string, h []message.Entry) ([]message.Entry, error) {
	if st == nil || len(h) == 0 || h[0].Message.ID == "" {
		return h, nil
	}
	older, err := st.Window().Before(ctx, sessionID, h[0].Message.ID)
	if err != nil || len(older) == 0 {
		return h, err
	}
	return append(older, h...), nil
}

// WholeHistory returns a copy of r's whole history: the stored messages
// before the window Open read, then the history r holds (History). It
// reads the database; the window alone when the older messages cannot be
// read (err says why). For inspection while idle, off a UI's update loop.
func WholeHistory(ctx context.Context, r *Runner) ([]message.Entry, error) {
	return wholeHistory(ctx, r.store, r.state.id(), r.state.historyCopy())
}

// readWhole makes the session's history whole in place (the caller holds
// busy): what needs the history before the newest summary — an undo of
// its compaction, pricing one — calls it first.
func readWhole(ctx context.Context, st *storage.Store, s *sessionState) error {
	var err error
	s.editHistory(func(h []message.Entry) []message.Entry {
		var whole []message.Entry
		whole, err = wholeHistory(ctx, st, s.id(), h)
		return whole
	})
	return err
}
