package loop

// rewind.go: taking a session back — /undo, /redo, /rewind, /diff, /fork
// and `agent rewind`, `agent diff`, `agent sessions fork`.
//
// Contract. A turn starts at a message the user wrote (not a synthetic
// continue, a summary or a compaction marker). Rewinding to a message takes
// back that message and everything after it: in the conversation, the
// messages are marked (message.Message.RewindID), never deleted — not sent
// to the model nor counted, still exported, and brought back by a redo; in
// the files, the files the taken-back steps changed (their patch parts)
// are restored as the first of those steps found them, and nothing else
// (an edit of another file is the user's and stays). Before touching a
// file the restore compares those files with the snapshot the session
// last left them in and refuses, naming the files, when someone changed
// them since (unless forced). Every rewind and redo is recorded (the
// rewinds table) with the snapshots it went between, so a redo restores
// the tree as the rewind found it. Nothing is rewound while a turn runs.
//
// The planning (Turns, planRewind, planRedo) is pure and reads only the
// history and the rewinds; the checkpointer (checkpoint.go) does the
// restore and the marking, and the Runner's methods here delegate to it.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/storage"
)

// Turn is one turn of the conversation as it stands (rewound turns are
// not listed): the user message that starts it and the patches of its
// steps, oldest first.
type Turn struct {
	// N numbers the turn from 1, the session's first.
	N         int
	MessageID string
	Text      string
	At        time.Time
	Patches   []message.PatchState
}

// Before is the snapshot the turn's first file-changing step started from
// ("" when no step changed a file).
func (t Turn) Before() string {
	if len(t.Patches) == 0 {
		return ""
	}
	return t.Patches[0].Before
}

// After is the snapshot its last file-changing step left.
func (t Turn) After() string {
	if len(t.Patches) == 0 {
		return ""
	}
	return t.Patches[len(t.Patches)-1].After
}

// startsTurn reports whether an entry is a message the user wrote.
func startsTurn(e message.Entry) bool {
	m := e.Message
	if m.Role != message.RoleUser || m.Synthetic || m.Summary || m.Rewound() || tokens.IsMarker(e) {
		return false
	}
	return joinText(e.Parts, message.PartText) != ""
}

// Turns lists the turns of history (oldest first) that are not rewound.
func Turns(history []message.Entry) []Turn {
	var turns []Turn
	for _, e := range history {
		if e.Message.Rewound() {
			continue
		}
		if startsTurn(e) {
			turns = append(turns, Turn{N: len(turns) + 1, MessageID: e.Message.ID, Text: joinText(e.Parts, message.PartText), At: e.Message.CreatedAt})
			continue
		}
		if len(turns) == 0 {
			continue
		}
		t := &turns[len(turns)-1]
		for _, p := range e.Parts {
			if p.Type == message.PartPatch && p.Patch != nil {
				t.Patches = append(t.Patches, *p.Patch)
			}
		}
	}
	return turns
}

// RewindOptions say what a rewind takes back.
type RewindOptions struct {
	// Mode is message.RewindBoth (the default), RewindCode or
	// RewindConversation.
	Mode string
	// Force restores files despite changes made outside the agent.
	Force bool
}

// RewindResult says what a rewind or a redo did.
type RewindResult struct {
	Record message.Rewind
	// Messages are the ids of the messages taken back (a redo: brought
	// back).
	Messages []string
	// UserText is the text of the user message a rewind took back first,
	// for the editor ("" when the first was not one the user wrote).
	UserText string
	// Restore is what the file restore did; nil when no file was restored.
	Restore *snapshot.RestoreResult
	// FilesNote says why files were not restored when the mode asked for
	// it ("no file changed since that message", "checkpoints are off: …").
	FilesNote string
	// Lost are the changes of the taken-back steps no restore can take
	// back (NotRestorableLines says them).
	Lost []message.PatchSkip
}

// rewindPlan is what a rewind to a message does.
type rewindPlan struct {
	from     string // the first message taken back
	userText string
	// target is the snapshot the files go back to ("" when no step from
	// there changed a file); paths are the files those steps changed;
	// expect is the snapshot the session last left the tree in.
	target string
	paths  []string
	expect string
}

// planRewind plans a rewind to message from.
func planRewind(history []message.Entry, rewinds []message.Rewind, from string) (rewindPlan, error) {
	plan := rewindPlan{from: from}
	found := false
	for _, e := range history {
		if e.Message.ID != from {
			continue
		}
		if e.Message.Rewound() {
			return plan, fmt.Errorf("message %s was already taken back", from)
		}
		found = true
		if startsTurn(e) {
			plan.userText = joinText(e.Parts, message.PartText)
		}
	}
	if !found {
		return plan, fmt.Errorf("message %s is not in this session", from)
	}
	plan.target, plan.paths = patchesFrom(history, from, "")
	plan.expect = lastTree(history, rewinds)
	return plan, nil
}

// patchesFrom returns the "before" of the first patch of the messages
// from id from on (and before id until, when set), and the files all of
// them changed, rewound or not: a rewind restores the tree as it was.
func patchesFrom(history []message.Entry, from, until string) (target string, paths []string) {
	seen := map[string]bool{}
	for _, e := range history {
		if e.Message.ID < from || (until != "" && e.Message.ID >= until) {
			continue
		}
		for _, p := range e.Parts {
			if p.Type != message.PartPatch || p.Patch == nil || len(p.Patch.Files) == 0 {
				continue // a patch of outside changes only takes nothing back
			}
			if target == "" {
				target = p.Patch.Before
			}
			for _, f := range p.Patch.Files {
				if !seen[f.Path] {
					seen[f.Path] = true
					paths = append(paths, f.Path)
				}
			}
		}
	}
	sort.Strings(paths)
	return target, paths
}

// patchStatesFrom returns the patches of the messages from id from on
// that are not taken back.
func patchStatesFrom(history []message.Entry, from string) []message.PatchState {
	var out []message.PatchState
	for _, e := range history {
		if e.Message.ID < from || e.Message.Rewound() {
			continue
		}
		for _, p := range e.Parts {
			if p.Type == message.PartPatch && p.Patch != nil {
				out = append(out, *p.Patch)
			}
		}
	}
	return out
}

// lastTree is the snapshot the session last left the tree in: the newest
// (by id, ids are time-ordered) of its patches' "after" and its restores'.
func lastTree(history []message.Entry, rewinds []message.Rewind) string {
	var at, tree string
	for _, e := range history {
		for _, p := range e.Parts {
			if p.Type == message.PartPatch && p.Patch != nil && p.ID > at {
				at, tree = p.ID, p.Patch.After
			}
		}
	}
	for _, rw := range rewinds {
		if rw.After != "" && rw.ID > at {
			at, tree = rw.ID, rw.After
		}
	}
	return tree
}

// planRedo returns the rewind a redo reapplies: the newest one not
// redone, when the conversation has not gone on since.
func planRedo(history []message.Entry, rewinds []message.Rewind) (message.Rewind, error) {
	for i := len(rewinds) - 1; i >= 0; i-- {
		rw := rewinds[i]
		if rw.Kind != message.RewindKindRewind || !rw.RedoneAt.IsZero() {
			continue
		}
		for _, e := range history {
			if e.Message.ID > rw.ID && !e.Message.Rewound() {
				return rw, errors.New("redo: the conversation went on after the last undo; nothing to redo")
			}
		}
		return rw, nil
	}
	return message.Rewind{}, errors.New("redo: nothing to redo")
}

// busyRewindError is a rewind's or a redo's refusal while the loop runs.
func busyRewindError(op string) error {
	return fmt.Errorf("%s: the agent is busy; wait for the turn to end or cancel it", op)
}

// Undo takes back the last turn, files and conversation: the files its
// steps changed are restored (refused with an *snapshot.OutsideChangesError
// when someone else changed them since), its messages marked rewound.
// RewindResult.UserText is the turn's message, for the editor.
func (r *Runner) Undo(ctx context.Context) (*RewindResult, error) { return r.cp.undo(ctx, false) }

// UndoForce is Undo despite changes made outside the agent (the user
// confirmed).
func (r *Runner) UndoForce(ctx context.Context) (*RewindResult, error) { return r.cp.undo(ctx, true) }

func (c *checkpointer) undo(ctx context.Context, force bool) (*RewindResult, error) {
	turns := Turns(c.history())
	if len(turns) == 0 {
		return nil, errors.New("undo: nothing to undo")
	}
	return c.rewind(ctx, turns[len(turns)-1].MessageID, RewindOptions{Force: force})
}

// Rewind takes the session back to before message toID: its files, its
// conversation, or both (opt.Mode). Changes made outside the agent to the
// files it would restore make it refuse with an *snapshot.OutsideChangesError
// listing them, touching nothing, unless opt.Force; another session running
// a tool in the directory makes it refuse with a *snapshot.BusyError.
func (r *Runner) Rewind(ctx context.Context, toID string, opt RewindOptions) (*RewindResult, error) {
	return r.cp.rewind(ctx, toID, opt)
}

func (c *checkpointer) rewind(ctx context.Context, toID string, opt RewindOptions) (*RewindResult, error) {
	mode := opt.Mode
	if mode == "" {
		mode = message.RewindBoth
	}
	switch mode {
	case message.RewindBoth, message.RewindCode, message.RewindConversation:
	default:
		return nil, fmt.Errorf("rewind: unknown mode %q (both, code or conversation)", mode)
	}
	if !c.claim() {
		return nil, busyRewindError("rewind")
	}
	defer c.release()
	rewinds, err := c.db.ListRewinds(ctx, c.session)
	if err != nil {
		return nil, fmt.Errorf("rewind: %w", err)
	}
	history := c.history()
	plan, err := planRewind(history, rewinds, toID)
	if err != nil {
		return nil, fmt.Errorf("rewind: %w", err)
	}
	res := &RewindResult{UserText: plan.userText}
	if mode != message.RewindConversation {
		res.Lost = LostOf(patchStatesFrom(history, plan.from))
	}
	rw := message.Rewind{SessionID: c.session, Kind: message.RewindKindRewind, Mode: mode, MessageID: plan.from}
	if mode != message.RewindConversation {
		store := c.snapshots(ctx)
		switch {
		case store == nil && c.whyOff() != "":
			res.FilesNote = c.whyOff()
		case store == nil:
			res.FilesNote = "checkpoints are switched off (checkpoints.enabled)"
		case plan.target == "":
			res.FilesNote = "no file changed since that message"
		}
		if res.FilesNote != "" && mode == message.RewindCode {
			return nil, fmt.Errorf("rewind: files not restored: %s", res.FilesNote)
		}
		if res.FilesNote == "" {
			rr, err := store.Restore(ctx, c.session, snapshot.ID(plan.target), snapshot.RestoreOptions{
				Paths: plan.paths, Expect: snapshot.ID(plan.expect), Force: opt.Force,
				Agent:  agentExpectations(history, rewinds, plan.from, plan.target, plan.paths),
				Unsure: unsurePaths(history, plan.from, ""),
			})
			if err != nil {
				return nil, fmt.Errorf("rewind: %w", err)
			}
			res.Restore = rr
			rw.Target, rw.Before, rw.After = plan.target, string(rr.Before), string(rr.After)
		}
	}
	marked, err := c.db.AddRewind(ctx, &rw)
	if err != nil {
		return res, fmt.Errorf("rewind: %w", err)
	}
	res.Record, res.Messages = rw, marked
	if err := c.reload(ctx, marked); err != nil {
		return res, fmt.Errorf("rewind: %w", err)
	}
	return res, nil
}

// Redo reapplies the last rewind (its files, as it found them, and its
// messages), refusing like Rewind when the files changed since. It fails
// when there is nothing to redo or the conversation went on after it.
func (r *Runner) Redo(ctx context.Context) (*RewindResult, error) { return r.cp.redo(ctx, false) }

// RedoForce is Redo despite changes made outside the agent.
func (r *Runner) RedoForce(ctx context.Context) (*RewindResult, error) { return r.cp.redo(ctx, true) }

func (c *checkpointer) redo(ctx context.Context, force bool) (*RewindResult, error) {
	if !c.claim() {
		return nil, busyRewindError("redo")
	}
	defer c.release()
	rewinds, err := c.db.ListRewinds(ctx, c.session)
	if err != nil {
		return nil, fmt.Errorf("redo: %w", err)
	}
	history := c.history()
	rw, err := planRedo(history, rewinds)
	if err != nil {
		return nil, err
	}
	res := &RewindResult{}
	redo := message.Rewind{SessionID: c.session, Kind: message.RewindKindRedo, Mode: rw.Mode, MessageID: rw.MessageID, Redoes: rw.ID}
	if rw.Before != "" {
		store := c.snapshots(ctx)
		if store == nil {
			return nil, fmt.Errorf("redo: files not restored: %s", orElse(c.whyOff(), "checkpoints are switched off (checkpoints.enabled)"))
		}
		_, paths := patchesFrom(history, rw.MessageID, rw.ID)
		rr, err := store.Restore(ctx, c.session, snapshot.ID(rw.Before), snapshot.RestoreOptions{
			Paths: paths, Expect: snapshot.ID(lastTree(history, rewinds)), Force: force,
			Agent: agentExpectations(history, rewinds, rw.MessageID, "", paths),
		})
		if err != nil {
			return nil, fmt.Errorf("redo: %w", err)
		}
		res.Restore = rr
		redo.Target, redo.Before, redo.After = rw.Before, string(rr.Before), string(rr.After)
	}
	for _, e := range history {
		if e.Message.RewindID == rw.ID {
			res.Messages = append(res.Messages, e.Message.ID)
		}
	}
	if err := c.db.AddRedo(ctx, &redo); err != nil {
		return res, fmt.Errorf("redo: %w", err)
	}
	res.Record = redo
	if err := c.reload(ctx, res.Messages); err != nil {
		return res, fmt.Errorf("redo: %w", err)
	}
	return res, nil
}

// reload reads the history again after a rewind or redo, hands it to the
// session (reloaded: the calculator is recounted from it), and announces
// the messages whose mark changed.
func (c *checkpointer) reload(ctx context.Context, changed []string) error {
	history, err := c.db.LoadHistory(ctx, c.session)
	if err != nil {
		return err
	}
	packHistory(history, c.session) // held as Open holds its window (historypack.go)
	c.reloaded(history)
	want := map[string]bool{}
	for _, id := range changed {
		want[id] = true
	}
	for _, e := range history {
		if want[e.Message.ID] {
			m := e.Message
			c.emit(message.Event{Type: message.EventMessageUpdated, SessionID: c.session, Message: &m})
		}
	}
	return nil
}

// TurnDiff is the patch of one turn.
type TurnDiff struct {
	Turn  Turn
	Patch *snapshot.Patch // nil Files when the turn changed no file
	// Lost are the turn's changes no undo can take back; Outside the
	// changes made while it ran that were not its own.
	Lost    []message.PatchSkip
	Outside []message.PatchOutside
}

// Diff returns the patch of turn n (1 the first; 0 the last) of the
// conversation as it stands.
func (r *Runner) Diff(ctx context.Context, n int) (*TurnDiff, error) { return r.cp.diff(ctx, n) }

func (c *checkpointer) diff(ctx context.Context, n int) (*TurnDiff, error) {
	store := c.snapshots(ctx)
	if store == nil {
		return nil, fmt.Errorf("diff: %s", orElse(c.whyOff(), "checkpoints are switched off (checkpoints.enabled)"))
	}
	return DiffTurn(ctx, store, c.history(), n)
}

// DiffTurn returns the patch of turn n (1 the first; 0 the last) of
// history, from the snapshots in st: for the read-only `agent diff`.
func DiffTurn(ctx context.Context, st *snapshot.Store, history []message.Entry, n int) (*TurnDiff, error) {
	turns := Turns(history)
	if len(turns) == 0 {
		return nil, errors.New("diff: the session has no turn yet")
	}
	if n < 0 || n > len(turns) {
		return nil, fmt.Errorf("diff: no turn %d (the session has %d)", n, len(turns))
	}
	t := turns[len(turns)-1]
	if n > 0 {
		t = turns[n-1]
	}
	d := &TurnDiff{Turn: t, Lost: LostOf(t.Patches)}
	for _, p := range t.Patches {
		d.Outside = append(d.Outside, p.Outside...)
	}
	if t.Before() == "" {
		d.Patch = &snapshot.Patch{}
		return d, nil
	}
	// Only the turn's own files: a change someone else made while it ran
	// is listed in Outside, not shown as the turn's.
	seen := map[string]bool{}
	var paths []string
	for _, p := range t.Patches {
		for _, f := range p.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				paths = append(paths, f.Path)
			}
		}
	}
	if len(paths) == 0 {
		d.Patch = &snapshot.Patch{}
		return d, nil
	}
	p, err := st.Diff(ctx, snapshot.ID(t.Before()), snapshot.ID(t.After()), paths...)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	d.Patch = p
	return d, nil
}

// Fork copies the session up to and including message atID ("" for all
// of it) into a new session, and returns it. See ForkSession.
func (r *Runner) Fork(ctx context.Context, atID string) (*message.Session, error) {
	return r.cp.fork(ctx, atID)
}

func (c *checkpointer) fork(ctx context.Context, atID string) (*message.Session, error) {
	return ForkSession(ctx, c.db, c.snapshots(ctx), c.session, atID)
}

// ForkSession copies session id up to and including message atID ("" for
// all of it) into a new session in the same directory with the same model
// (storage.ForkSession), and makes the new session hold the snapshots its
// patches name (snaps may be nil: checkpoints off).
func ForkSession(ctx context.Context, st *storage.Store, snaps *snapshot.Store, id, atID string) (*message.Session, error) {
	fork, err := st.ForkSession(ctx, id, atID)
	if err != nil {
		return nil, err
	}
	if snaps == nil {
		return fork, nil
	}
	history, err := st.LoadHistory(ctx, fork.ID)
	if err != nil {
		return fork, err
	}
	var ids []snapshot.ID
	for _, e := range history {
		for _, p := range e.Parts {
			if p.Type == message.PartPatch && p.Patch != nil {
				ids = append(ids, snapshot.ID(p.Patch.Before), snapshot.ID(p.Patch.After))
			}
		}
	}
	if err := snaps.Keep(ctx, fork.ID, ids); err != nil {
		return fork, fmt.Errorf("fork session %s: %w", id, err)
	}
	return fork, nil
}

// DescribeRestore says in a few lines what a restore did: the files put
// back and those left as they were, with why.
func DescribeRestore(rr *snapshot.RestoreResult) string {
	if rr == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restored %d file(s)", len(rr.Restored))
	for _, f := range rr.Restored {
		fmt.Fprintf(&b, "\n  %s (%s)", f.Path, restoreVerb(f.Status))
	}
	if len(rr.NotRestored) > 0 {
		fmt.Fprintf(&b, "\nnot restored: %d path(s)", len(rr.NotRestored))
		for _, s := range rr.NotRestored {
			fmt.Fprintf(&b, "\n  %s: %s", s.Path, s.Reason)
		}
	}
	return b.String()
}

// restoreVerb says what a restore did to a file whose change (current →
// target) has status s.
func restoreVerb(s snapshot.Status) string {
	switch s {
	case snapshot.Added:
		return "recreated"
	case snapshot.Deleted:
		return "removed"
	}
	return "put back"
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
