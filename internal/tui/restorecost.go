package tui

// /context's restore line: what undoing context management would make
// the request — the undo_tokens and restore_tokens of `agent context`,
// from Runner.RestoreCost — and whether that fits the current model.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
)

// restoreCostMsg is the price of a restore, for the /context overlay.
type restoreCostMsg struct{ cost loop.RestoreCost }

// restoreCostCmd prices the restore off the Update loop. Not while a
// turn runs (the history is the loop's then): the caller asks only when
// the runner is idle.
func restoreCostCmd(r *loop.Runner) tea.Cmd {
	return func() tea.Msg {
		c, ok := r.RestoreCost()
		if !ok {
			return nil
		}
		return restoreCostMsg{cost: c}
	}
}

func (msg restoreCostMsg) apply(m *Model) {
	if d, ok := m.drawer.(*contextDrawer); ok {
		c := msg.cost
		d.restore = &c
	}
}

// restoreLines says what /compact undo and a full restore would need;
// nothing when there is nothing to restore.
func restoreLines(c loop.RestoreCost) []string {
	if c.Undo == nil {
		return nil
	}
	fits := func(n int64) string {
		if c.Fit <= 0 || n <= c.Fit {
			return "fits"
		}
		return fmt.Sprintf("does not fit: compaction starts at ~%s; /model to a larger window first", formatTokens(c.Fit))
	}
	what := "Undo of the last compaction"
	if c.UndoKind == "pruned" {
		what = "Restoring the cleared tool outputs"
	}
	lines := []string{fmt.Sprintf("%s (/compact undo) would need ~%s tokens (%s)", what, formatTokens(*c.Undo), fits(*c.Undo))}
	if c.Full != *c.Undo {
		lines = append(lines, fmt.Sprintf("A full restore (every compaction undone, every cleared output back) would need ~%s tokens (%s)", formatTokens(c.Full), fits(c.Full)))
	}
	return lines
}
