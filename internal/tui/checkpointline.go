package tui

// checkpointline.go: the progress line of a slow checkpoint, and its skip
// key.
//
// Contract. The loop reports a checkpoint that takes a while as
// EventCheckpointProgress events (done/total files, a Skip func), the last
// one Finished. While one is under way the status line's activity is
// "taking a checkpoint… 3,200/13,018 files · ctrl+s skips", updated by each
// event; skipCheckpointKey calls Skip (once: it only closes a channel, so
// Update never blocks) and the line then says what skipping means until
// the Finished event, or the end of the turn, takes it away. The line is
// made of figures and fixed words only: nothing from the tree (a file
// name) reaches the screen through it.

import (
	"github.com/ctxloop/agent/internal/message"
)

// skipCheckpointKey skips a checkpoint under way (free in keys.go; the
// task editor's ctrl+s "save" is a drawer's own key).
const skipCheckpointKey = "ctrl+s"

// skippedCheckpointText is the line once the user skipped: what the loop
// does with a skipped checkpoint (loop.skippedNote).
const skippedCheckpointText = "skipping the checkpoint: keeping only the files the tools name"

// checkpointLine is the checkpoint under way, if any (zero: none).
type checkpointLine struct {
	p       *message.CheckpointProgress
	skipped bool
}

// update applies one progress event: the last (Finished) takes the line
// away.
func (c *checkpointLine) update(p message.CheckpointProgress) {
	if p.Finished {
		*c = checkpointLine{}
		return
	}
	c.p = &p
}

// end takes the line away (the turn ended without a Finished event).
func (c *checkpointLine) end() { *c = checkpointLine{} }

// key takes skipCheckpointKey while a checkpoint is under way and skips
// it; any other key, or none under way, is not taken.
func (c *checkpointLine) key(s string) bool {
	if c.p == nil || s != skipCheckpointKey {
		return false
	}
	if !c.skipped && c.p.Skip != nil {
		c.p.Skip()
	}
	c.skipped = true
	return true
}

// view is the line's text ("" when no checkpoint is under way).
func (c *checkpointLine) view(th *theme) string {
	switch {
	case c.p == nil:
		return ""
	case c.skipped:
		return th.WarnText.Render(skippedCheckpointText)
	}
	return th.WarnText.Render(c.p.Text()) + th.Dim.Render(" · "+skipCheckpointKey+" skips · esc interrupts")
}
