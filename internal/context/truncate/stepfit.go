package truncate

import "fmt"

// FitStep decides how much of each result of one step may enter the
// conversation so that together they stay within budget. sizes are the
// results' sizes in call order (any unit: tokens here), budget the room the
// step may take, floor the least a cut result keeps. The returned limits are
// in the same unit and order; a limit equal to the size leaves that result
// whole.
//
// Older results are cut first: a model reading six files in one step acts
// on all of them, but the newest call is the one it most recently chose, and
// an older result cut to its head keeps the saved whole one a read away.
// Each cut result keeps at least floor (or its size, when smaller), so when
// even that does not fit, the sum stays above budget and compaction has to
// make the room.
func FitStep(sizes []int64, budget, floor int64) []int64 {
	limits := append([]int64(nil), sizes...)
	var total int64
	for _, s := range sizes {
		total += s
	}
	excess := total - max(budget, 0)
	for i := range limits {
		if excess <= 0 {
			break
		}
		keep := min(limits[i], max(floor, limits[i]-excess))
		excess -= limits[i] - keep
		limits[i] = keep
	}
	return limits
}

// StepNotice is the paragraph appended to a result FitStep cut: how much of
// it is shown, why, and where the whole is. path may be empty when the
// output could not be saved.
func StepNotice(keptLines, totalLines, totalBytes int, path string) string {
	where := "The full output could not be saved; narrow the request (offset/limit, a more specific pattern or path) to see the rest."
	if path != "" {
		where = fmt.Sprintf("The full output is saved at %s; use read with offset=%d (and limit) to continue, or grep on that file to search it.", path, keptLines+1)
	}
	return fmt.Sprintf("\n\n[Output cut to fit the context: this step's results together were larger than the room left in the context window, so older results of the step were shortened first. Showing the first %d of %d lines (%s in all). %s]",
		keptLines, totalLines, formatBytes(totalBytes), where)
}
