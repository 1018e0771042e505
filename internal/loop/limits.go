package loop

import (
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
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

// PruneThresholds returns the prune thresholds for a session whose
// calculator shows s. A threshold the config sets is used as it is. A
// default (40K protected, 20K minimum) suits windows of 200K; in a 32K
// window it would never fire and compaction would do all the work, so a
// default protects at most a quarter of the usable window and a sixteenth
// is enough of a saving.
func PruneThresholds(c config.Compaction, s tokens.Snapshot) prune.Options {
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

// nearState is what the forecast of compaction remembers between steps
// (owned by the loop goroutine).
type nearState struct {
	turnStarts []int64 // totals at the start of the last turns, oldest first
	lastTotal  int64   // the total before the previous step
	warned     bool    // past tokens.NearFraction of the point since it was last below
	// first is the user message of this process's first turn, seeded
	// whether the turns before it were put ahead of turnStarts
	// (forecastseed.go).
	first  string
	seeded bool
}

// announceNear runs before every step (newTurn: the first of a turn). When
// the total first passes tokens.NearFraction of the compaction point it
// emits EventCompactionNear with a forecast (tokens.ForecastCompaction);
// before every later step until the compaction it emits the forecast again
// as an update (Forecast.Update), so a status line counts down instead of
// showing the first estimate. A total already past the point is compacted now, which
// the compaction's own event says.
func (r *Runner) announceNear(s tokens.Snapshot, newTurn bool) {
	n := &r.near
	if newTurn {
		if n.first == "" {
			n.first = lastUserID(r.history)
		}
		n.turnStarts = append(n.turnStarts, s.Total)
		if k := len(n.turnStarts) - 8; k > 0 {
			n.turnStarts = append(n.turnStarts[:0], n.turnStarts[k:]...)
		}
	}
	lastStep := s.Total - n.lastTotal
	if n.lastTotal == 0 {
		lastStep = 0
	}
	n.lastTotal = s.Total
	var warn bool
	warn, n.warned = tokens.NearCompaction(n.warned, s.Total, s.CompactAt)
	if !n.warned || s.Total > s.CompactAt {
		return
	}
	n.seedTurnStarts(r.history, func(prefix []message.Entry) int64 {
		sys, tl := r.fixedTokens()
		return tokens.Restore(r.calcOptions(), r.est, sys, tl, prefix).Snapshot().Total
	})
	f := tokens.ForecastCompaction(n.turnStarts, s.Total, lastStep, s.CompactAt)
	r.emit(message.Event{Type: message.EventCompactionNear, SessionID: r.sess.ID, Forecast: &message.CompactionForecast{
		Total: s.Total, CompactAt: s.CompactAt, TurnsLeft: f.TurnsLeft, NextStep: f.NextStep, Text: f.String(),
		Update: !warn,
	}})
}
