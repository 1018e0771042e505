package loop

// checkpoint.go: the loop's side of the snapshot store (internal/snapshot).
//
// Contract. A step whose tool calls include one that can change files
// (any tool not ReadOnly: write, edit, bash) runs them between two
// snapshots of the session's directory: "before", taken just before the
// tools run, and "after", taken just after. When the two differ, the step's
// assistant message gains a patch part (message.PatchState: the files with
// their status and line counts, the two snapshot ids, what the snapshots
// left out). That part is what /undo, /rewind and /diff read. Its Files
// are only the changes the step's own tools could have made
// (snapshot.Attribute, from stepTools in attribution.go); the others are
// its Outside changes, and the changes no snapshot holds its Lost ones.
//
// Cost. The "after" snapshot is taken in the background while the loop
// goes on to the next request (the model changes no file), and joined —
// its patch part stored by the loop goroutine, so events keep their order —
// before the next step's tools run or when the turn ends. Within a turn the
// joined "after" is the next step's "before": no second walk of the tree.
// A new turn takes a fresh "before", since the user may have edited files
// in between.
//
// Budget. A tree over checkpoints' budget is checkpointed by the paths
// the step's tools name, each step with its own "before"
// (checkpoint_budget.go).
//
// Faults. Without git, or when the store cannot be opened, checkpoints are
// off: Open says so once (a note) and everything else works. A snapshot
// that fails is reported as a note and the step goes on: checkpoints never
// fail a turn.

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

// maxPatchSkips bounds the skipped paths a patch part lists.
const maxPatchSkips = 50

// checkpoints is a Runner's snapshot state.
type checkpoints struct {
	// The store opens on first use (openStore): a one-step answer that
	// changes no file never pays for it. dir is set when checkpoints are
	// on; mu guards store and off, which the TUI's Diff may read while
	// the loop takes a snapshot.
	mu    sync.Mutex
	dir   string
	store *snapshot.Store // nil when off or not opened yet
	off   string          // why they are off ("" when on, or switched off by the config)

	// Owned by the loop goroutine (whoever holds busy):
	last    snapshot.Snapshot // the turn's newest joined "after": the next "before"
	pending *pendingAfter
	// The budget of a whole-tree snapshot and what the session's first
	// one decided (checkpoint_budget.go): whole within it, or partial
	// (paths-only snapshots from then on).
	budget         snapshot.Budget
	whole, partial bool
}

// pendingAfter is an "after" snapshot being taken in the background.
type pendingAfter struct {
	done      chan struct{}
	messageID string
	before    snapshot.Snapshot
	after     snapshot.Snapshot
	patch     *snapshot.Patch
	claims    []snapshot.Attributed // patch's files, each with whose it is
	lost      []snapshot.Skip       // changes of files the snapshots do not hold
	err       error
}

// openCheckpoints prepares checkpoints for the session's directory. The
// store itself opens on first use (Runner.checkpointStore), so start-up
// pays nothing for it — except when git is missing (say so now, once) or a
// restore a crash interrupted is waiting (finish it now, and say what it
// restored): both are a stat, not a git process.
func (r *Runner) openCheckpoints(ctx context.Context, dir string) {
	c := r.opt.Config
	if !c.Snapshots.Enabled || c.DataDir == "" || dir == "" {
		return
	}
	r.cp.dir = dir
	r.cp.budget = snapshot.Budget{MaxFiles: c.Snapshots.MaxFiles, FirstTime: c.Snapshots.FirstSnapshot}
	if _, err := exec.LookPath("git"); err != nil || snapshot.Interrupted(c.DataDir, dir) {
		r.checkpointStore(ctx)
	}
}

// checkpointStore returns the directory's snapshot store, opening it on
// first use; nil when checkpoints are off (r.cp.off says why, noted once).
func (r *Runner) checkpointStore(ctx context.Context) *snapshot.Store {
	r.cp.mu.Lock()
	if r.cp.store != nil || r.cp.off != "" || r.cp.dir == "" {
		defer r.cp.mu.Unlock()
		return r.cp.store
	}
	c := r.opt.Config
	st, err := snapshot.Open(context.WithoutCancel(ctx), c.DataDir, r.cp.dir, snapshot.Options{MaxFileBytes: c.Snapshots.MaxFileBytes, IgnoredMaxBytes: c.Snapshots.IgnoredMaxBytes})
	var note string
	if err != nil {
		note = err.Error()
		if !errors.Is(err, snapshot.ErrUnavailable) {
			note = "checkpoints are off: " + note
		}
		r.cp.off, st = note, nil
	} else {
		r.cp.store = st
		if rec := st.Recovered(); rec != nil {
			note = recoveryNote(rec)
		}
	}
	r.cp.mu.Unlock()
	if note != "" {
		r.note(note) // outside cp.mu: an observer may ask for the notes
	}
	return st
}

// checkpointsOff says why checkpoints are off, "" when they are on.
func (r *Runner) checkpointsOff() string {
	r.cp.mu.Lock()
	defer r.cp.mu.Unlock()
	return r.cp.off
}

// recoveryNote says what Open's recovery of an interrupted restore did.
func recoveryNote(rec *snapshot.RestoreResult) string {
	msg := fmt.Sprintf("checkpoints: finished a restore that was interrupted (session %s): %d file(s) restored", rec.Session, len(rec.Restored))
	if n := len(rec.NotRestored); n > 0 {
		msg += fmt.Sprintf(", %d not restored", n)
	}
	return msg
}

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

// CheckpointsOff returns why checkpoints are off, or "" when they are on
// (or switched off in the config).
func (r *Runner) CheckpointsOff() string { return r.checkpointsOff() }

// mutates reports whether any of the calls can change files.
func (r *Runner) mutates(e *message.Entry, calls []int) bool {
	for _, ix := range calls {
		if t, ok := r.stepper.registry().Get(e.Parts[ix].Tool.Name); ok && !t.ReadOnly() {
			return true
		}
	}
	return false
}

// checkpointTools runs a step's tools (run) between a "before" and an
// "after" snapshot when any of them can change files: the one entry point
// of checkpoints in a step.
func (r *Runner) checkpointTools(ctx context.Context, e *message.Entry, calls []int, run func()) {
	if !r.mutates(e, calls) {
		run()
		return
	}
	st := r.checkpointStore(ctx)
	if st == nil {
		run()
		return
	}
	sctx := context.WithoutCancel(ctx) // the tree must be recorded even when cancelled
	known := stepPaths(e, calls, st.WorkTree(), st.Exists)
	before, ok := r.joinAfter(sctx)
	if !ok || r.cp.partial { // paths-only: the last "after" did not cover this step's paths
		var err error
		var notice string
		pctx, progress := withCheckpointProgress(sctx, r.emit, r.sess.ID)
		before, notice, err = r.cp.takeBefore(pctx, st, r.sess.ID, "before step "+e.Message.ID, known)
		progress.finish()
		if notice != "" {
			r.note(notice)
		}
		if errors.Is(err, snapshot.ErrSkipped) {
			r.note(skippedNote)
			run()
			return
		}
		if err != nil {
			r.note(fmt.Sprintf("checkpoint before the step failed (this step cannot be undone): %v", err))
			run()
			return
		}
	}
	end, err := st.BeginTool(sctx, r.sess.ID)
	if err != nil {
		end = func() {}
	}
	start := time.Now()
	run()
	stop := time.Now()
	end()
	tools := stepTools(e, calls, func(name string) bool {
		t, ok := r.stepper.registry().Get(name)
		return ok && t.ReadOnly()
	}, st.WorkTree(), r.sess.ID, start, stop)
	p := &pendingAfter{done: make(chan struct{}), messageID: e.Message.ID, before: before}
	r.cp.pending = p
	partial := r.cp.partial
	go func() {
		defer close(p.done)
		p.after, p.err = r.cp.take(sctx, st, r.sess.ID, "after step "+p.messageID, known, partial)
		if p.err == nil && p.after.Tree != p.before.Tree {
			p.patch, p.err = st.Diff(sctx, p.before.ID, p.after.ID)
		}
		if p.patch != nil {
			p.claims = snapshot.Attribute(p.patch.Files, tools, st.ToolWindows(start.Add(-time.Minute)), st.ChangeTime)
		}
		if p.err == nil {
			p.lost = snapshot.LostChanges(p.before.Skipped, p.after.Skipped, st.Exists)
		}
	}()
}

// joinAfter waits for the pending "after" snapshot, stores its patch part,
// and returns it as the next "before" (ok false when there is none).
func (r *Runner) joinAfter(ctx context.Context) (snapshot.Snapshot, bool) {
	p := r.cp.pending
	if p == nil {
		return r.cp.last, r.cp.last.ID != ""
	}
	r.cp.pending = nil
	<-p.done
	if p.err != nil {
		r.note(fmt.Sprintf("checkpoint after the step failed (this step cannot be undone): %v", p.err))
		r.cp.last = snapshot.Snapshot{}
		return snapshot.Snapshot{}, false
	}
	r.cp.last = p.after
	if ps := patchState(p.before, p.after, p.claims, p.lost); ps != nil {
		r.addPatchPart(ctx, p.messageID, ps)
	}
	return p.after, true
}

// settleCheckpoint ends a turn's checkpoints: the last "after" is joined
// and its patch stored, and the next turn starts with a fresh "before".
func (r *Runner) settleCheckpoint(ctx context.Context) {
	if r.cp.pending == nil && r.cp.last.ID == "" {
		return // no snapshot was taken this turn
	}
	r.joinAfter(context.WithoutCancel(ctx))
	r.cp.last = snapshot.Snapshot{}
}

// patchState is the patch part of a step (claims: its changes, each with
// whose it is; lost: those no undo can take back), or nil when the step
// changed nothing, saw no change of anyone else and left out nothing new.
func patchState(before, after snapshot.Snapshot, claims []snapshot.Attributed, lost []snapshot.Skip) *message.PatchState {
	ps := &message.PatchState{Before: string(before.ID), After: string(after.ID)}
	ps.Files, ps.Outside = splitPatch(claims)
	for _, l := range lost {
		if len(ps.Lost) < maxPatchSkips {
			ps.Lost = append(ps.Lost, message.PatchSkip{Path: l.Path, Reason: l.Reason, Bytes: l.Bytes, MTime: l.MTime, Limit: l.Limit, Status: l.Status.String()})
		}
	}
	known := map[string]bool{}
	for _, s := range before.Skipped {
		known[s.Path+"\x00"+s.Reason] = true
	}
	fresh := false
	for _, s := range after.Skipped {
		fresh = fresh || !known[s.Path+"\x00"+s.Reason]
		if len(ps.Skipped) < maxPatchSkips {
			ps.Skipped = append(ps.Skipped, message.PatchSkip{Path: s.Path, Reason: s.Reason, Bytes: s.Bytes, MTime: s.MTime, Limit: s.Limit})
		}
	}
	if len(ps.Files) == 0 && len(ps.Outside) == 0 && len(ps.Lost) == 0 && !fresh {
		return nil
	}
	return ps
}

// addPatchPart stores a patch part with the step's message and announces it.
func (r *Runner) addPatchPart(ctx context.Context, messageID string, ps *message.PatchState) {
	p := message.Part{SessionID: r.sess.ID, MessageID: messageID, Type: message.PartPatch, Patch: ps}
	if err := r.store.UpsertPart(ctx, &p); err != nil {
		r.note(fmt.Sprintf("save the step's patch: %v", err))
		return
	}
	r.mu.Lock()
	for i := len(r.history) - 1; i >= 0; i-- {
		if r.history[i].Message.ID == messageID {
			r.history[i].Parts = append(r.history[i].Parts, p)
			break
		}
	}
	r.mu.Unlock()
	r.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
}
