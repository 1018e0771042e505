package loop

import (
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
)

// inputCapped applies a model's input limit to a compaction strategy: the
// strategy decides on the window the limit leaves
// (tokens.Snapshot.CompactionWindow), so a model whose input cap is below
// window − reserve compacts before a request passes the cap, with the
// strategy's own margin, rather than after a context-length error. The
// calculator applies the same window to CompactAt.
type inputCapped struct{ compact.Strategy }

// ShouldCompact asks the strategy with the window the input limit leaves.
func (s inputCapped) ShouldCompact(snap tokens.Snapshot) (bool, string) {
	snap.Window = snap.CompactionWindow()
	return s.Strategy.ShouldCompact(snap)
}
