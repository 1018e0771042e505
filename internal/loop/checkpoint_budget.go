package loop

// checkpoint_budget.go: checkpoints of a tree over the budget
// (snapshot.Budget, from checkpoints.max_files and first_snapshot_seconds).
//
// Contract. The session's first "before" snapshot decides: a tree whose
// index already counts more files than MaxFiles, or whose first whole
// snapshot does not finish within FirstTime (it is abandoned then, leaving
// nothing behind), is checkpointed by tool-known paths only for the rest
// of the session (snapshot.TakePaths with stepPaths' answer), and the
// session gets one note saying so (snapshot.Budget.Notice). Every step then
// takes its own "before" (the previous "after" did not cover this step's
// paths); undo of such a step restores those paths only. A tree found over
// the time budget stays so for later sessions in the directory
// (snapshot.RememberOverBudget: a week, or until the tree halves), which
// go paths-only from their first step with a notice saying when and why.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

// takeBefore takes a step's "before" snapshot within the budget. notice is
// the one-line note of the moment the session goes paths-only ("" else).
func (c *checkpointer) takeBefore(ctx context.Context, st *snapshot.Store, session, label string, known []string) (snap snapshot.Snapshot, notice string, err error) {
	if !c.partial && !c.whole {
		n := snapshot.FileCount(st)
		if c.budget.Exceeded(n, 0) {
			c.partial, notice = true, c.budget.Notice(n)
		} else if d, ok := snapshot.RecallOverBudget(st, n, time.Now()); ok {
			c.partial, notice = true, d.Notice() // an earlier session found it too slow
		} else {
			tctx, cancel := ctx, context.CancelFunc(func() {})
			if c.budget.FirstTime > 0 {
				tctx, cancel = context.WithTimeout(ctx, c.budget.FirstTime)
			}
			snap, err = st.Take(tctx, session, label)
			timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded)
			cancel()
			if err == nil || !timedOut {
				if c.whole = err == nil; c.whole {
					snapshot.ForgetOverBudget(st)
				}
				return snap, "", err
			}
			_ = snapshot.RememberOverBudget(st, n, c.budget, time.Now()) // best effort: a next session only pays the attempt again
			c.partial, notice = true, c.budget.Notice(0)
		}
	}
	snap, err = c.take(ctx, st, session, label, known, c.partial)
	return snap, notice, err
}

// take is a whole-tree snapshot, or with partial a paths-only one.
func (c *checkpointer) take(ctx context.Context, st *snapshot.Store, session, label string, known []string, partial bool) (snapshot.Snapshot, error) {
	if partial {
		return snapshot.TakePaths(ctx, st, session, label, known)
	}
	return st.Take(ctx, session, label)
}

// stepPaths are the paths a step's tool calls name before they run: the
// path of write and edit, and the paths bash commands name
// (snapshot.KnownPaths), relative to the work tree.
func stepPaths(e *message.Entry, calls []int, workTree string, exists func(string) bool) []string {
	var paths, commands []string
	for _, ix := range calls {
		tool := e.Parts[ix].Tool
		if tool == nil {
			continue
		}
		var in struct {
			Path    string `json:"path"`
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(tool.Input), &in) != nil {
			continue
		}
		switch tool.Name {
		case "write", "edit":
			paths = append(paths, in.Path)
		case "bash":
			commands = append(commands, in.Command)
		}
	}
	return snapshot.KnownPaths(workTree, paths, commands, exists)
}
