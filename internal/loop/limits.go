package loop

import (
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/tokens"
)

// inputCapped applies a model's input limit to a compaction strategy: the
// strategy decides on the window the limit leaves
// (tokens.Reading.CompactionWindow), so a model whose input cap is below
// window − reserve compacts before a request passes the cap, with the
// strategy's own margin, rather than after a context-length error. The
// calculator applies the same window to CompactAt.
type inputCapped struct{ compact.Strategy }

// ShouldCompact asks the strategy with the window the input limit leaves.
func (s inputCapped) ShouldCompact(snap tokens.Reading) (bool, string) {
	snap.Window = snap.CompactionWindow()
	return s.Strategy.ShouldCompact(snap)
}

// PruneThresholds returns the prune thresholds for a session whose
// calculator shows s. A threshold the config sets is used as it is. A
// default (40K protected, 20K minimum) suits windows of 200K; in a 32K
// window it would never fire and compaction would do all the work, so a
// default protects at most a quarter of the usable window and a sixteenth
// is enough of a saving.
func PruneThresholds(c config.Compaction, s tokens.Reading) prune.Options {
	usable := max(s.Usable(), 1)
	o := prune.Options{
		Protect:      min(prune.DefaultProtect, usable/4),
		Minimum:      min(prune.DefaultMinimum, usable/16),
		ProtectTurns: prune.DefaultProtectTurns,
	}
	if c.PruneProtect > 0 {
		o.Protect = c.PruneProtect
	}
	if c.PruneMinimum > 0 {
		o.Minimum = c.PruneMinimum
	}
	return o
}
