package loop

// checkpoint_progress.go: a slow checkpoint before a step's tools is shown
// and can be skipped.
//
// Contract. A "before" snapshot runs under a context carrying a progress
// callback (snapshot.WithProgress): the snapshot reports only when it has
// many files to hash and has run for a while, and each report becomes an
// EventCheckpointProgress whose Skip closes the skip channel only this
// snapshot watches. A checkpoint that reported ends with a Finished event.
// A skipped checkpoint fails with snapshot.ErrSkipped: the step, and the
// session's later ones, are checkpointed by the paths their tools name
// (snapshot.TakePaths), and a note says so (skippedNote).

import (
	"context"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

// skippedNote is the note of a step whose checkpoint the user skipped.
const skippedNote = "checkpoint skipped: this session now keeps only the files its tools name (write, edit, paths a shell command names); other changes cannot be undone"

// checkpointProgress relays one snapshot's progress to the observer.
type checkpointProgress struct {
	emit    func(message.Event)
	session string
	start   time.Time
	skip    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	last    message.CheckpointProgress
	shown   bool
	told    bool // a report was marked Announce
}

// announceAfter is how long a checkpoint runs before a report is marked
// Announce.
const announceAfter = time.Second

// withCheckpointProgress returns ctx carrying a progress relay to emit.
func withCheckpointProgress(ctx context.Context, emit func(message.Event), session string) (context.Context, *checkpointProgress) {
	p := &checkpointProgress{emit: emit, session: session, start: time.Now(), skip: make(chan struct{})}
	return snapshot.WithProgress(ctx, p.report, p.skip), p
}

// Skip skips the snapshot (at its next chunk of files).
func (p *checkpointProgress) Skip() { p.once.Do(func() { close(p.skip) }) }

func (p *checkpointProgress) report(done, total int) {
	p.mu.Lock()
	p.shown = true
	p.last = message.CheckpointProgress{Done: done, Total: total, Elapsed: time.Since(p.start), Skip: p.Skip}
	ev := p.last
	if !p.told && ev.Elapsed >= announceAfter {
		p.told, ev.Announce = true, true
	}
	p.mu.Unlock()
	p.emit(message.Event{Type: message.EventCheckpointProgress, SessionID: p.session, Checkpoint: &ev})
}

// finish sends the Finished event of a snapshot that reported.
func (p *checkpointProgress) finish() {
	p.mu.Lock()
	shown, ev := p.shown, p.last
	p.mu.Unlock()
	if !shown {
		return
	}
	ev.Finished, ev.Announce, ev.Elapsed = true, false, time.Since(p.start)
	p.emit(message.Event{Type: message.EventCheckpointProgress, SessionID: p.session, Checkpoint: &ev})
}
