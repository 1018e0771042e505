package loop

// notes.go: what the runner notes that is not an error of a turn (about
// checkpoints, a skipped instruction file): kept in the session state for
// Notes and sent to the observer as an EventNote (emitter.note).

// Notes returns what the runner noted since Open: about checkpoints (they
// are off and why, a restore recovered at Open, a snapshot that failed)
// and the instruction files skipped (instructions.go).
func (r *Runner) Notes() []string { return r.state.notesCopy() }
