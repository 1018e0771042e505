package snapshot

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestOverBudgetDecisionIsRemembered: a tree found over the time budget
// is remembered in the store's directory, so the next session (another
// Store of the same directory) skips the slow attempt, until the tree
// shrinks to under half or a week passes.
func TestOverBudgetDecisionIsRemembered(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work, data := t.TempDir(), t.TempDir()
	first, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	if _, ok := RecallOverBudget(first, 13018, now); ok {
		t.Fatal("a decision before any was made")
	}
	if err := RememberOverBudget(first, 13018, Budget{FirstTime: 5 * time.Second}, now); err != nil {
		t.Fatal(err)
	}
	next, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := RecallOverBudget(next, 13100, now.Add(time.Hour))
	if !ok || d.Files != 13018 || d.FirstTime != 5*time.Second || !d.At.Equal(now) {
		t.Fatalf("the next session does not recall the decision: %+v %v", d, ok)
	}
	for _, want := range []string{"13,018 files", "over 5s", "2026-11-26", "tried again after 2026-12-03"} {
		if !strings.Contains(d.Notice(), want) {
			t.Errorf("the notice does not say %q: %s", want, d.Notice())
		}
	}
	if _, ok := RecallOverBudget(next, 0, now.Add(time.Hour)); !ok {
		t.Error("an unknown file count dropped the decision")
	}
	if _, ok := RecallOverBudget(next, 6000, now.Add(time.Hour)); ok {
		t.Error("a tree shrunk to under half is not tried whole again")
	}
	if _, ok := RecallOverBudget(next, 13018, now.Add(8*24*time.Hour)); ok {
		t.Error("a decision older than a week still holds")
	}
	ForgetOverBudget(next)
	if _, ok := RecallOverBudget(first, 13018, now); ok {
		t.Error("a forgotten decision still holds")
	}
	if err := os.WriteFile(budgetMemory(next), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := RecallOverBudget(next, 13018, now); ok {
		t.Error("a malformed file is a decision")
	}
}
