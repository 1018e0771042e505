package tui

import "testing"

// TestExtraRowsCountsRewrappedRowsAboveTheCursor: the rows a narrowing adds
// are those of every line but the cursor's that is wider than the new width.
func TestExtraRowsCountsRewrappedRowsAboveTheCursor(t *testing.T) {
	for _, c := range []struct {
		widths     []int
		old, width int
		want       int
	}{
		{[]int{10, 120, 60, 120}, 120, 80, 1}, // the rule wraps; the status line is the cursor's
		{[]int{120, 120, 5}, 120, 50, 4},      // three rows each
		{[]int{200, 5}, 120, 80, 1},           // a line never counts wider than the terminal was
		{[]int{120, 120}, 120, 120, 0},        // unchanged
		{[]int{80, 80}, 80, 120, 0},           // widening
		{[]int{120}, 120, 80, 0},              // the cursor's row alone
	} {
		if got := extraRows(c.widths, c.old, c.width); got != c.want {
			t.Errorf("extraRows(%v, %d, %d) = %d, want %d", c.widths, c.old, c.width, got, c.want)
		}
	}
}
