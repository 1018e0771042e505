package tokens

import "fmt"

// The forecast of compaction: the user is told once, when the total passes
// NearFraction of the compaction point, how soon compaction is expected, so
// that it never comes as a surprise. Both functions are pure; the loop keeps
// the totals and the warned state.

// NearFraction is the share of the compaction point past which the context
// is near compaction.
const NearFraction = 0.9

// forecastTurns is how many of the last turns the growth is averaged over.
const forecastTurns = 3

// Forecast is when compaction is expected.
type Forecast struct {
	// TurnsLeft is the estimated number of turns (the current one
	// included) before the total passes the compaction point; 0 when
	// there is no estimate.
	TurnsLeft int
	// NextStep is set when the next step is expected to pass it.
	NextStep bool
}

// String says the forecast for people: "compaction in about 3 turns".
func (f Forecast) String() string {
	switch {
	case f.NextStep:
		return "compaction at the next step"
	case f.TurnsLeft == 1:
		return "compaction in about 1 turn"
	case f.TurnsLeft > 1:
		return fmt.Sprintf("compaction in about %d turns", f.TurnsLeft)
	}
	return "compaction soon"
}

// ForecastCompaction estimates when the total passes compactAt. turnStarts
// are the totals at the start of the last turns, oldest first; lastStep is
// what the last step added. The next step is expected to pass the point
// when the last step's growth would; otherwise the turns left are the room
// divided by the average growth per turn over the last forecastTurns turns
// since the total last fell (a compaction or a prune), rounded up. Without
// two turns of growth there is no estimate.
func ForecastCompaction(turnStarts []int64, total, lastStep, compactAt int64) Forecast {
	room := compactAt - total
	if room <= 0 || (lastStep > 0 && lastStep >= room) {
		return Forecast{NextStep: true}
	}
	from := len(turnStarts) - 1
	for from > 0 && turnStarts[from-1] <= turnStarts[from] && len(turnStarts)-from <= forecastTurns {
		from--
	}
	if from < 0 || from == len(turnStarts)-1 {
		return Forecast{}
	}
	turns := int64(len(turnStarts) - 1 - from)
	growth := turnStarts[len(turnStarts)-1] - turnStarts[from]
	if growth <= 0 {
		return Forecast{}
	}
	return Forecast{TurnsLeft: int((room*turns + growth - 1) / growth)}
}

// NearCompaction decides the warning: warn is set when total first reaches
// NearFraction of compactAt; warned is the state to pass next time, cleared
// once the total falls below it again (after a compaction), so that each
// crossing warns once. A compactAt of 0 (automatic compaction off) never
// warns.
func NearCompaction(warned bool, total, compactAt int64) (warn, stillWarned bool) {
	if compactAt <= 0 {
		return false, false
	}
	near := float64(total) >= NearFraction*float64(compactAt)
	return near && !warned, near
}
