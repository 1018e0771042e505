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
//
// The checkpointer owns this, and the rewinds that read it (rewind.go). It
// is given what it works on explicitly (checkpointDeps: the store, the
// session's id and directory, the config, and function values for the
// events, the notes, the tools offered and the session's history), so it
// runs and is tested without a Runner. The Runner holds one and delegates
// its exported rewind API to it.

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// maxPatchSkips bounds the skipped paths a patch part lists.
const maxPatchSkips = 50

// checkpointDeps is what a checkpointer is given; every field is required.
type checkpointDeps struct {
	db      *storage.Store
	session string // the session's id
	// dir is the session's directory; newCheckpointer clears it when
	// checkpoints are off.
	dir    string
	config *config.Config // Snapshots and DataDir
	emit   func(message.Event)
	// note reports something that is not an error of the turn (Runner.note).
	note func(msg string)
	// registry returns the tools offered now (they change: /model, MCP).
	registry func() *tools.Registry
	// history returns a copy of the session's history; editHistory
	// replaces it with what edit returns, under the lock its readers take.
	history     func() []message.Entry
	editHistory func(edit func([]message.Entry) []message.Entry)
	// claim marks the loop busy for a rewind or a redo, reporting false
	// (and changing nothing) when it already was; release ends that busy
	// period (Runner.endBusy).
	claim   func() bool
	release func()
	// reloaded installs the history read again after a rewind or a redo
	// (and recounts what depends on it).
	reloaded func([]message.Entry)
}

// checkpointer is a session's checkpoints and rewinds; see the top of this
// file and of rewind.go.
type checkpointer struct {
	checkpointDeps
	// The store opens on first use (snapshots): a one-step answer that
	// changes no file never pays for it. mu guards store and off, which
	// the TUI's Diff may read while the loop takes a snapshot.
	mu    sync.Mutex
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

// newCheckpointer prepares checkpoints for the session's directory. The
// store itself opens on first use (snapshots), so start-up pays nothing
// for it — except when git is missing (say so now, once) or a restore a
// crash interrupted is waiting (finish it now, and say what it restored):
// both are a stat, not a git process. Checkpoints are off when the config
// switches them off or there is no data directory or no directory.
func newCheckpointer(ctx context.Context, d checkpointDeps) *checkpointer {
	c := &checkpointer{checkpointDeps: d}
	cfg := d.config
	if !cfg.Snapshots.Enabled || cfg.DataDir == "" || d.dir == "" {
		c.dir = "" // off: snapshots never opens a store
		return c
	}
	c.budget = snapshot.Budget{MaxFiles: cfg.Snapshots.MaxFiles, FirstTime: cfg.Snapshots.FirstSnapshot}
	if _, err := exec.LookPath("git"); err != nil || snapshot.Interrupted(cfg.DataDir, d.dir) {
		c.snapshots(ctx)
	}
	return c
}

// snapshots returns the directory's snapshot store, opening it on first
// use; nil when checkpoints are off (whyOff says why, noted once).
func (c *checkpointer) snapshots(ctx context.Context) *snapshot.Store {
	c.mu.Lock()
	if c.store != nil || c.off != "" || c.dir == "" {
		defer c.mu.Unlock()
		return c.store
	}
	cfg := c.config
	st, err := snapshot.Open(context.WithoutCancel(ctx), cfg.DataDir, c.dir, snapshot.Options{MaxFileBytes: cfg.Snapshots.MaxFileBytes, IgnoredMaxBytes: cfg.Snapshots.IgnoredMaxBytes, Secrets: secretValues(cfg)})
	var note string
	if err != nil {
		note = err.Error()
		if !errors.Is(err, snapshot.ErrUnavailable) {
			note = "checkpoints are off: " + note
		}
		c.off, st = note, nil
	} else {
		c.store = st
		if rec := st.Recovered(); rec != nil {
			note = recoveryNote(rec)
		}
	}
	c.mu.Unlock()
	if note != "" {
		c.note(note) // outside c.mu: an observer may ask for the notes
	}
	return st
}

// whyOff says why checkpoints are off, "" when they are on.
func (c *checkpointer) whyOff() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.off
}

// recoveryNote says what Open's recovery of an interrupted restore did.
func recoveryNote(rec *snapshot.RestoreResult) string {
	msg := fmt.Sprintf("checkpoints: finished a restore that was interrupted (session %s): %d file(s) restored", rec.Session, len(rec.Restored))
	if n := len(rec.NotRestored); n > 0 {
		msg += fmt.Sprintf(", %d not restored", n)
	}
	return msg
}

// runnerCheckpointDeps wires a Runner's checkpointer (Open): the one place
// that knows which of the Runner's fields the checkpointer's function
// values read and write. The checkpointer keeps the functions, not r.
func runnerCheckpointDeps(r *Runner, dir string) checkpointDeps {
	return checkpointDeps{db: r.store, session: r.state.id(), dir: dir, config: r.opt.Config,
		emit: r.ev.emit, note: r.ev.note, registry: r.stepper.registry, history: func() []message.Entry { h, _ := WholeHistory(context.Background(), r); return h },
		editHistory: r.state.editHistory,
		claim:       r.turns.claim,
		release:     r.turns.release,
		reloaded: func(h []message.Entry) {
			r.state.editHistory(func([]message.Entry) []message.Entry { return h })
			r.stepper.doom.reset()
			r.restoreCalculator()
		},
	}
}

// mutates reports whether any of the calls can change files.
func (c *checkpointer) mutates(e *message.Entry, calls []int) bool {
	for _, ix := range calls {
		if t, ok := c.registry().Get(e.Parts[ix].Tool.Name); ok && !t.ReadOnly() {
			return true
		}
	}
	return false
}

// aroundTools runs a step's tools (run) between a "before" and an "after"
// snapshot when any of them can change files: the one entry point of
// checkpoints in a step.
func (c *checkpointer) aroundTools(ctx context.Context, e *message.Entry, calls []int, run func()) {
	if !c.mutates(e, calls) {
		run()
		return
	}
	st := c.snapshots(ctx)
	if st == nil {
		run()
		return
	}
	sctx := context.WithoutCancel(ctx) // the tree must be recorded even when cancelled
	known := stepPaths(e, calls, st.WorkTree(), st.Exists)
	before, ok := c.joinAfter(sctx)
	if !ok || c.partial { // paths-only: the last "after" did not cover this step's paths
		var err error
		var notice string
		pctx, progress := withCheckpointProgress(sctx, c.emit, c.session)
		before, notice, err = c.takeBefore(pctx, st, c.session, "before step "+e.Message.ID, known)
		progress.finish()
		if notice != "" {
			c.note(notice)
		}
		if errors.Is(err, snapshot.ErrSkipped) {
			// The user skipped the whole-tree checkpoint: this step and
			// the session's later ones keep the paths their tools name.
			c.partial = true
			c.note(skippedNote)
			before, err = c.take(sctx, st, c.session, "before step "+e.Message.ID, known, true)
		}
		if err != nil {
			c.note(fmt.Sprintf("checkpoint before the step failed (this step cannot be undone): %v", err))
			run()
			return
		}
	}
	end, err := st.BeginTool(sctx, c.session)
	if err != nil {
		end = func() {}
	}
	start := time.Now()
	run()
	stop := time.Now()
	end()
	tools := stepTools(e, calls, func(name string) bool {
		t, ok := c.registry().Get(name)
		return ok && t.ReadOnly()
	}, st.WorkTree(), c.session, start, stop)
	p := &pendingAfter{done: make(chan struct{}), messageID: e.Message.ID, before: before}
	c.pending = p
	partial := c.partial
	go func() {
		defer close(p.done)
		p.after, p.err = c.take(sctx, st, c.session, "after step "+p.messageID, known, partial)
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
func (c *checkpointer) joinAfter(ctx context.Context) (snapshot.Snapshot, bool) {
	p := c.pending
	if p == nil {
		return c.last, c.last.ID != ""
	}
	c.pending = nil
	<-p.done
	if p.err != nil {
		c.note(fmt.Sprintf("checkpoint after the step failed (this step cannot be undone): %v", p.err))
		c.last = snapshot.Snapshot{}
		return snapshot.Snapshot{}, false
	}
	c.last = p.after
	if ps := patchState(p.before, p.after, p.claims, p.lost); ps != nil {
		c.addPatchPart(ctx, p.messageID, ps)
	}
	return p.after, true
}

// settle ends a turn's checkpoints: the last "after" is joined and its
// patch stored, and the next turn starts with a fresh "before".
func (c *checkpointer) settle(ctx context.Context) {
	if c.pending == nil && c.last.ID == "" {
		return // no snapshot was taken this turn
	}
	c.joinAfter(context.WithoutCancel(ctx))
	c.last = snapshot.Snapshot{}
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
func (c *checkpointer) addPatchPart(ctx context.Context, messageID string, ps *message.PatchState) {
	p := message.Part{SessionID: c.session, MessageID: messageID, Type: message.PartPatch, Patch: ps}
	if err := c.db.UpsertPart(ctx, &p); err != nil {
		c.note(fmt.Sprintf("save the step's patch: %v", err))
		return
	}
	c.editHistory(func(h []message.Entry) []message.Entry {
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].Message.ID == messageID {
				h[i].Parts = append(h[i].Parts, p)
				break
			}
		}
		return h
	})
	c.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
}
