package loop

// The forecast of compaction (the compactor's announceNear, below), and
// the turns a continued session had before this process. The forecast (tokens.ForecastCompaction) averages the growth of the total
// over the last turns; a process that continues a session (`agent run -c`,
// a resumed chat) ran none of them, so without them it could only say
// "compaction soon". The total at the start of each earlier turn is what
// the one calculator (tokens.Restore) gives for the history up to that
// turn's user message, so the forecast counts the same turns whichever
// process ran them. It is computed once, when a forecast is first due
// (past tokens.NearFraction of the compaction point), never at start-up.

import (
	"slices"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// keptTurnStarts is how many turn starts the forecast keeps.
const keptTurnStarts = 8

// pastTurnStarts returns the calculator's totals at the start of the last
// n turns of history, oldest first, back to the newest summary (the total
// fell there, and the forecast looks no further). A turn starts with a
// user message the user wrote that does not steer a running turn (one
// after a step that asked for tools). total gives the calculator's total
// for a prefix of history.
func pastTurnStarts(history []message.Entry, n int, total func(prefix []message.Entry) int64) []int64 {
	var starts []int64
	for i := len(history) - 1; i >= 0 && len(starts) < n; i-- {
		m := history[i].Message
		if m.Summary {
			break
		}
		if m.Role != message.RoleUser || m.Synthetic {
			continue
		}
		if i > 0 {
			prev := history[i-1].Message
			if prev.Role == message.RoleAssistant && prev.FinishReason == "tool_calls" {
				continue // steering
			}
		}
		starts = append(starts, total(history[:i+1]))
	}
	slices.Reverse(starts)
	return starts
}

// seedTurnStarts puts the turns before this process's first turn (the
// user message first) ahead of turnStarts, once.
func (n *nearState) seedTurnStarts(history []message.Entry, total func(prefix []message.Entry) int64) {
	if n.seeded {
		return
	}
	n.seeded = true
	i := slices.IndexFunc(history, func(e message.Entry) bool { return e.Message.ID == n.first })
	if i < 0 {
		return // rewound past it, or no turn yet
	}
	past := pastTurnStarts(history[:i], keptTurnStarts-len(n.turnStarts), total)
	n.turnStarts = append(past, n.turnStarts...)
}

// lastUserID returns the id of the newest user message of history.
func lastUserID(history []message.Entry) string {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Message.Role == message.RoleUser {
			return history[i].Message.ID
		}
	}
	return ""
}

// nearState is what the forecast of compaction remembers between steps
// (owned by the loop goroutine, in the compactor).
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
func (c *compactor) announceNear(s tokens.Reading, newTurn bool) {
	n := &c.near
	if newTurn {
		if n.first == "" {
			n.first = lastUserID(c.history.entries())
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
	n.seedTurnStarts(c.history.entries(), func(prefix []message.Entry) int64 {
		f, pr := c.fixed(), c.price()
		return tokens.Restore(pr.calcOptions(), pr.est, f.System, f.Tools, prefix).Reading().Total
	})
	f := tokens.ForecastCompaction(n.turnStarts, s.Total, lastStep, s.CompactAt)
	c.emit(message.Event{Type: message.EventCompactionNear, SessionID: c.session(), Forecast: &message.CompactionForecast{
		Total: s.Total, CompactAt: s.CompactAt, TurnsLeft: f.TurnsLeft, NextStep: f.NextStep, Text: f.String(),
		Update: !warn,
	}})
}
