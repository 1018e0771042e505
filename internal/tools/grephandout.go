package tools

// grephandout.go: the walk hands files to grep's workers in batches, in
// walk order. One file per channel send woke a parked worker for each of
// 20,000 files (a futex and a spin each: half the search's wall time on a
// tree of small files). Batches start at one file, so a pattern that fills
// the result limit in the first files scans no more than before, and
// double up to grepBatchMax. Every file handed out is still scanned
// completely, so the scanned files remain a prefix of the walk order
// (grepSearch's contract).

// grepBatchMax is the most files one batch holds.
const grepBatchMax = 64

// grepHandout collects the next batch.
type grepHandout struct {
	batch []grepJob
	size  int // the current batch's target size
}

// add appends j and returns the batch to hand out once it is full.
func (h *grepHandout) add(j grepJob) []grepJob {
	if h.size == 0 {
		h.size = 1
	}
	h.batch = append(h.batch, j)
	if len(h.batch) < h.size {
		return nil
	}
	full := h.batch
	h.batch = make([]grepJob, 0, min(h.size*2, grepBatchMax))
	h.size = min(h.size*2, grepBatchMax)
	return full
}

// flush returns what is left, nil when nothing.
func (h *grepHandout) flush() []grepJob {
	if len(h.batch) == 0 {
		return nil
	}
	rest := h.batch
	h.batch = nil
	return rest
}
