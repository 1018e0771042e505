package loop

// notes.go: what the runner notes that is not an error of a turn (about
// checkpoints, a skipped instruction file): kept for Notes and sent to the
// observer as an EventNote. The notes are session state, guarded by r.mu.

import "github.com/ctxloop/agent/internal/message"

// note reports something that is not an error of the turn (about
// checkpoints, a skipped instruction file): kept for Notes and sent to
// the observer.
func (r *Runner) note(msg string) {
	r.mu.Lock()
	r.notes = append(r.notes, msg)
	r.mu.Unlock()
	r.emit(message.Event{Type: message.EventNote, SessionID: r.sess.ID, Note: msg})
}

// Notes returns what the runner noted since Open: about checkpoints (they
// are off and why, a restore recovered at Open, a snapshot that failed)
// and the instruction files skipped (instructions.go).
func (r *Runner) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.notes...)
}
