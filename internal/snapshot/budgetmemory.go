package snapshot

// budgetmemory.go: a tree found over the time budget stays so across
// sessions.
//
// Contract. When a session's first whole-tree snapshot runs over
// Budget.FirstTime, the caller records it (RememberOverBudget): the
// store's directory keeps agent-over-budget, a small JSON file with the
// tree's file count then, the budget and when. The next session in the
// same directory asks RecallOverBudget before it tries: while the decision
// holds it goes straight to paths-only snapshots, with a notice that says
// when and why it was decided (OverBudget.Notice), instead of paying the
// slow attempt again. A decision lapses (retryWhole) after a week, or when
// the tree now has less than half the files it had; a later whole
// snapshot that succeeds forgets it (ForgetOverBudget). A missing,
// unreadable or malformed file is no decision.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
)

// budgetMemoryFile is the decision's file in the store's git directory.
const budgetMemoryFile = "agent-over-budget"

// rememberFor is how long a decision holds.
const rememberFor = 7 * 24 * time.Hour

// OverBudget is a remembered decision: the tree had Files files (0: not
// known) and its first snapshot ran over FirstTime, at At.
type OverBudget struct {
	Files     int           `json:"files"`
	FirstTime time.Duration `json:"first_time_ns"`
	At        time.Time     `json:"at"`
}

// retryWhole reports whether a decision d no longer holds at now for a
// tree of files files (0: not known): a week has passed, or the tree
// shrank to less than half.
func retryWhole(d OverBudget, files int, now time.Time) bool {
	if now.Sub(d.At) >= rememberFor || now.Before(d.At) {
		return true
	}
	return files > 0 && d.Files > 0 && files < d.Files/2
}

// budgetMemory is the decision's file of s.
func budgetMemory(s *Store) string { return filepath.Join(s.git.GitDir, budgetMemoryFile) }

// RememberOverBudget records that the tree of files files ran over b's
// first-snapshot time at now.
func RememberOverBudget(s *Store, files int, b Budget, now time.Time) error {
	data, err := json.Marshal(OverBudget{Files: files, FirstTime: b.FirstTime, At: now.UTC()})
	if err != nil {
		return err
	}
	tmp := budgetMemory(s) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("remember the checkpoint budget: %w", err)
	}
	if err := os.Rename(tmp, budgetMemory(s)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("remember the checkpoint budget: %w", err)
	}
	return nil
}

// RecallOverBudget returns the decision that the tree (now files files,
// 0: not known) is over budget, with ok true while it holds at now.
func RecallOverBudget(s *Store, files int, now time.Time) (d OverBudget, ok bool) {
	data, err := safefile.Read(context.Background(), budgetMemory(s), s.git.GitDir, 4<<10)
	if err != nil || json.Unmarshal(data, &d) != nil || d.At.IsZero() {
		return OverBudget{}, false
	}
	return d, !retryWhole(d, files, now)
}

// ForgetOverBudget drops the decision (a whole snapshot succeeded).
func ForgetOverBudget(s *Store) { os.Remove(budgetMemory(s)) }

// Notice is the one-line notice of a session that skips the whole-tree
// attempt because of d.
func (d OverBudget) Notice() string {
	size := ""
	if d.Files > 0 {
		size = fmt.Sprintf(" of %s files", groupThousands(d.Files))
	}
	return fmt.Sprintf("checkpoints: this tree%s took over %s to checkpoint whole on %s (checkpoints.first_snapshot_seconds), so each step keeps only the files its tools name (write, edit, paths a shell command names); other changes cannot be undone. Whole checkpoints are tried again after %s, or once the tree has under half as many files",
		size, d.FirstTime, d.At.Local().Format("2006-01-02 15:04"), d.At.Add(rememberFor).Local().Format("2006-01-02"))
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
