package loop

// reqresume.go: a conversation that starts where the last one ended. The
// request cache's walk over the history (reqcache.go) checks each entry
// against what it keeps for it: ≈ 1–2 ms for a resumed session of 4,000
// messages whose entries are cold in memory, between Enter and the
// request, although the warming made the last conversation from the same
// entries a moment before (reqwarm.go), or the last step from all but
// the newest. When the history's edits since that conversation
// (historyedits.go) changed none of its entries but the recheckNewest
// newest, and what it gained since, like those, changes nothing of what is
// visible before it (plainAppend), the walk starts recheckNewest places
// before the last one's end: the entries before that are sent as they
// were, with the prices and repairs counted up to them (builtSums). The
// request is the one a whole walk makes (FuzzRequestCache,
// TestPrepareAfterTheWarmingWalksOnlyWhatIsNew, TestEveryHistoryWriterIsSeen).

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// recheckNewest is how many of the last conversation's newest entries
// are walked again anyway: the step's own entry is written in place while
// its tools run, between two requests, and counts as no edit.
const recheckNewest = 8

// walkRecord is what a conversation was made from: the history's mark,
// the prices' calibration, its visible entries, whether one of them had
// an image (the images after an entry decide how it is sent: no resume).
type walkRecord struct {
	mark      historyMark
	ratio     float64
	roundtrip bool
	visible   int
	images    bool
	valid     bool // a known mark, and the prices kept
	// plainTail: the recheckNewest newest entries were plainAppend's;
	// firstID and edgeID the ids of the first entry and of the one
	// before those.
	plainTail       bool
	firstID, edgeID string
	summarised      bool
}

// resumeWalk returns the visible place from which the conversation of
// history must be walked, and the entries to walk from there (history's
// newest, which are the last of what it sends): the places before it are
// sent as the last conversation sent them. 0 for a whole walk. The caller
// holds c.mu.
func (c *requestCache) resumeWalk(history []message.Entry, now walkRecord, opt ConvertOptions, est tokens.Estimator) (int, []message.Entry) {
	last := &c.resume
	newest := last.mark.n - recheckNewest // the first history entry walked again
	if !now.valid || !last.valid || last.images || !last.plainTail || now.mark.lock != last.mark.lock || c.mode != modeOf(opt) || c.est != est ||
		len(c.built.at) != last.visible || newest < 1 || now.mark.n != len(history) || len(history) < newest {
		return 0, nil
	}
	if now.mark.unchangedUpTo(last.mark, newest, len(history)) < newest { // historyedits.go
		return 0, nil
	}
	// The same entries where the walk starts: a history put in place
	// whole (not through a writer) is not taken for it.
	if history[0].Message.ID != last.firstID || history[newest-1].Message.ID != last.edgeID {
		return 0, nil
	}
	// What is walked again and what was appended leaves what is visible
	// before it as it was, and is sent in its order after it: the
	// newest entries of the last conversation were its last places.
	tail := history[newest:]
	if !plainTail(tail, len(tail)) {
		return 0, nil
	}
	from := last.visible - recheckNewest
	if from < 1 {
		return 0, nil
	}
	// The entries kept must be sent from their kept conversions: diverge
	// rebuilds the call ids seen from those. One sent fresh (an image, a
	// call id used before: repaired with what came before it) is walked
	// whole, as a whole walk would.
	for i := range c.built.at[:from] {
		if c.built.at[i].conv == nil {
			return 0, nil
		}
	}
	if (now.ratio != last.ratio || now.roundtrip != last.roundtrip) && !c.reprice(from, now.ratio, now.roundtrip) {
		return 0, nil
	}
	return from, tail
}

// recordWalk completes the record of a conversation over history.
func recordWalk(r *walkRecord, history []message.Entry) {
	n := len(history)
	r.plainTail = r.valid && n > recheckNewest && plainTail(history, recheckNewest)
	if r.plainTail {
		r.firstID, r.edgeID = history[0].Message.ID, history[n-recheckNewest-1].Message.ID
	}
}

// repriceAhead counts the last conversation's calibrated prices at the
// calculator's calibration now, so that the next conversation, when it
// resumes, finds them counted: the warming calls it while the user types
// (the last answer's usage moved the calibration since that request).
func (c *requestCache) repriceAhead(calc *tokens.Calculator) {
	_, ratio, roundtrip := calc.Pricing()
	c.mu.Lock()
	defer c.mu.Unlock()
	last := &c.resume
	if !last.valid || last.images || len(c.built.at) != last.visible || (last.ratio == ratio && last.roundtrip == roundtrip) {
		return
	}
	if c.reprice(len(c.built.at), ratio, roundtrip) {
		last.ratio, last.roundtrip = ratio, roundtrip
	}
}

// reprice counts the calibrated prices of the last conversation's first
// from entries again at a new calibration (the last answer's usage moved
// it), from the prices kept for them. False when one has none kept.
func (c *requestCache) reprice(from int, ratio float64, roundtrip bool) bool {
	at := c.built.at[:from]
	for i := range at {
		if at[i].ce == nil || at[i].ce.cost == nil {
			return false
		}
	}
	var calibrated int64
	for i := range at {
		calibrated += at[i].ce.cost.at(ratio, roundtrip)
		at[i].sums.calibrated = calibrated
	}
	return true
}

// plainTail reports whether the n newest entries of history are
// plainAppend's.
func plainTail(history []message.Entry, n int) bool {
	for i := max(len(history)-n, 0); i < len(history); i++ {
		if !plainAppend(&history[i]) {
			return false
		}
	}
	return true
}

// plainAppend reports whether an entry appended to a history leaves what
// is visible before it as it was, and is sent after it: not a summary, a
// marker, rewound, a compaction, nor an image.
func plainAppend(e *message.Entry) bool {
	if e.Message.Summary || e.Message.Rewound() || tokens.IsMarker(*e) || hasImage(e) {
		return false
	}
	for i := range e.Parts {
		if e.Parts[i].Type == message.PartCompaction {
			return false
		}
	}
	return true
}
