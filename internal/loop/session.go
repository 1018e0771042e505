package loop

// session.go: the session state a Runner drives.

import (
	"context"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// sessionState is the session as the Runner holds it: its row, the
// history and system prompt the next request is built from, the pins, the
// notes, the lease, and the prompt's environment.
//
// One lock, mu, guards sess, history, system, pins, notes and pendingEnv
// (and the turn control's fields: turn.go). The history and the system
// prompt are written under mu; whoever holds busy (turnControl) owns them
// and reads them without it, because nobody else writes them meanwhile.
// promptAt, promptFromOpen, skipped, systemRecorded and git are only touched by Open and by the
// loop holding busy. sessWrite serialises copying sess and writing it, so
// that the stored row never goes back to an older title or model; it also
// guards lease and unsaved.
type sessionState struct {
	mu      historyLock // and its edits (historyedits.go)
	sess    message.Session
	history []message.Entry
	system  []string
	pins    []message.Pin
	notes   []string
	// pendingEnv is Options.Environment, or PrefetchEnvironment's, until a
	// turn takes it.
	pendingEnv *PendingEnvironment
	// promptAt is when the system prompt's environment was gathered;
	// promptFromOpen, that Open gathered it and no turn has run since.
	promptAt       time.Time
	promptFromOpen bool
	skipped        skippedNotes // the instruction files named in notes (instructions.go)
	// systemRecorded is the system prompt count recorded last
	// (recordSystem, reading.go); the loop's, like promptAt.
	systemRecorded systemCount
	// git is the git status of the session's start, which the system
	// messages carry, and the turn's (envcontext.go); the loop's, like
	// promptAt.
	git gitStatuses

	sessWrite sync.Mutex
	lease     *storage.Lease // nil while unsaved
	// unsaved: the session's row and lease wait for its first message
	// (Options.RowOnFirstMessage).
	unsaved bool
}

// session returns the session's row as it is now.
func (s *sessionState) session() message.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// id is the session's id; it never changes.
func (s *sessionState) id() string { return s.sess.ID }

// historyCopy returns a copy of the history.
func (s *sessionState) historyCopy() []message.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]message.Entry(nil), s.history...)
}

// editHistory replaces the history with edit's result.
func (s *sessionState) editHistory(edit func([]message.Entry) []message.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = edit(s.history)
	s.mu.edited(0) // any entry
}

// appendEntry adds e to the history (not an edit: historyedits.go).
func (s *sessionState) appendEntry(e message.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append(s.history, e)
}

// historyMark is the history's edit count and length; the caller owns
// the history (holds the lock, or busy).
func (s *sessionState) historyMark() historyMark {
	return historyMark{edits: s.mu.edits.Load(), n: len(s.history), lock: &s.mu}
}

// replaceEntry replaces the newest entry of e's message with e.
func (s *sessionState) replaceEntry(e message.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i].Message.ID == e.Message.ID {
			s.history[i] = e
			s.mu.edited(i)
			return
		}
	}
}

// pinsCopy returns the pins, oldest first.
func (s *sessionState) pinsCopy() []message.Pin {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]message.Pin(nil), s.pins...)
}

// addPin adds a stored pin.
func (s *sessionState) addPin(p message.Pin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pins = append(s.pins, p)
}

// editPin sets the text of pin id and returns it (zero if none).
func (s *sessionState) editPin(id, text string) (p message.Pin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pins {
		if s.pins[i].ID == id {
			s.pins[i].Text = text
			p = s.pins[i]
		}
	}
	return p
}

// removePin takes pin id out and returns it (zero if none).
func (s *sessionState) removePin(id string) (p message.Pin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pins {
		if s.pins[i].ID == id {
			p = s.pins[i]
			s.pins = append(s.pins[:i], s.pins[i+1:]...)
			break
		}
	}
	return p
}

// addNote keeps a note (notes.go).
func (s *sessionState) addNote(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, msg)
}

// notesCopy returns the notes kept since Open.
func (s *sessionState) notesCopy() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

// write changes the row with change, called with mu held, and stores it,
// under sessWrite; it returns the row stored. An error of change stores
// nothing.
func (s *sessionState) write(ctx context.Context, store *storage.Store, change func(*message.Session) error) (message.Session, error) {
	s.sessWrite.Lock()
	defer s.sessWrite.Unlock()
	s.mu.Lock()
	if err := change(&s.sess); err != nil {
		s.mu.Unlock()
		return message.Session{}, err
	}
	row := s.sess
	s.mu.Unlock()
	return row, store.UpdateSession(ctx, &row)
}

// addUsage adds one call's usage and cost to the session's totals, stored
// then in memory, and returns the row; ok is false when the write failed.
func (s *sessionState) addUsage(ctx context.Context, store *storage.Store, u message.Usage, costUSD float64) (row message.Session, ok bool) {
	s.sessWrite.Lock()
	defer s.sessWrite.Unlock()
	if err := store.AddSessionUsage(context.WithoutCancel(ctx), s.sess.ID, u, costUSD); err != nil {
		return row, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess.Usage = s.sess.Usage.Add(u)
	s.sess.CostUSD += costUSD
	return s.sess, true
}

// stored reports whether the session's row is in the database.
func (s *sessionState) stored() bool {
	s.sessWrite.Lock()
	defer s.sessWrite.Unlock()
	return !s.unsaved
}

// release gives the lease up, if the row was ever written.
func (s *sessionState) release() error {
	s.sessWrite.Lock()
	defer s.sessWrite.Unlock()
	if s.lease == nil {
		return nil
	}
	return s.lease.Release()
}
