package loop

// No paid compaction that saves nothing. An automatic compaction prunes
// old tool outputs first (the cheaper measure); if that brings the request
// under the compaction point, decided as the turn decides (compact.Decide
// on decisionReading: the calculator's total or our own count of the
// request, whichever is more, against the point a refusal may have
// lowered), no summary is asked for. Compactions the user asked for, and
// emergencies after a provider refused a request for its size, go on.

import (
	"errors"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
)

// errPrunedEnough ends an automatic compaction whose prune made the
// request fit.
var errPrunedEnough = errors.New("the prune made the request fit")

// prunedEnough reports whether an automatic compaction can stop after
// its prune: s (the decision snapshot after it) no longer calls for one.
func prunedEnough(req compactRequest, st compact.Strategy, s tokens.Reading) bool {
	if !req.auto || req.refused > 0 || req.userPlan() {
		return false
	}
	ok, _ := compact.Decide(st, s)
	return !ok
}
