package overlay

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

// The picker's line of a turn must not add up its steps' counts when two
// steps changed the same file: the sum is not the turn's change, which
// /diff shows (issue 32 item 6: one turn's change read +2−1 in one place
// and +1−0 in another).
func TestTurnDetailCountsOnlyTheNetChange(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 0, 0, time.Local)
	step := func(before, after string, files ...message.PatchFile) message.PatchState {
		return message.PatchState{Before: before, After: after, Files: files}
	}
	cases := []struct {
		name      string
		patches   []message.PatchState
		want, not string
	}{
		{"one step", []message.PatchState{
			step("a", "b", message.PatchFile{Path: "x.go", Status: "modified", LinesAdded: 2, LinesDeleted: 1}),
		}, "15:04 · 1 file +2 −1", ""},
		{"two steps, other files", []message.PatchState{
			step("a", "b", message.PatchFile{Path: "x.go", Status: "modified", LinesAdded: 2, LinesDeleted: 1}),
			step("b", "c", message.PatchFile{Path: "y.go", Status: "added", LinesAdded: 3}),
		}, "15:04 · 2 files +5 −1", ""},
		{"two steps, the same file", []message.PatchState{
			step("a", "b", message.PatchFile{Path: "x.go", Status: "modified", LinesAdded: 1}),
			step("b", "c", message.PatchFile{Path: "x.go", Status: "modified", LinesAdded: 1, LinesDeleted: 1}),
		}, "15:04 · 1 file changed in 2 steps · /diff counts the lines", "+2 −1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := turnDetail(loop.Turn{At: at, Patches: c.patches})
			if got != c.want {
				t.Errorf("turnDetail = %q, want %q", got, c.want)
			}
			if c.not != "" && strings.Contains(got, c.not) {
				t.Errorf("turnDetail = %q adds up the steps (%s), which is not the turn's change", got, c.not)
			}
		})
	}
}
