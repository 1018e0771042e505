package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestJudgePrints: appending keeps the prefix (the shared share of the
// bytes is what the budget expects from the cache); any change before the
// end of the last request is a break, named by what changed in the
// history, and an announced change names a break it explains.
func TestJudgePrints(t *testing.T) {
	base := func() *requestPrint {
		return &requestPrint{model: "m", tools: printed(partPrint{1, 100}), msgs: []partPrint{{2, 50}, {3, 50}}, system: 9, history: 4}
	}
	appended := base()
	appended.msgs = append(appended.msgs, partPrint{4, 200})
	appended.history = 6
	for _, c := range []struct {
		name      string
		change    func(p *requestPrint)
		announced string
		broken    bool
		reason    string
		at        int
	}{
		{"appended", func(p *requestPrint) { *p = *appended }, "", false, "", -1},
		{"model", func(p *requestPrint) { p.model = "m2" }, "", true, BoundaryModel, -1},
		{"effort", func(p *requestPrint) { p.effort = "high" }, "", true, BoundaryEffort, -1},
		{"tools", func(p *requestPrint) { p.tools = printed(partPrint{5, 120}) }, "", true, BoundaryTools, -1},
		{"prune", func(p *requestPrint) { p.msgs[1] = partPrint{7, 20}; p.compacted = 3 }, "", true, BoundaryPrune, 1},
		{"compaction", func(p *requestPrint) { p.msgs = p.msgs[:1]; p.summary = "s1" }, "", true, BoundaryCompaction, 1},
		{"pins", func(p *requestPrint) { p.msgs[1] = partPrint{8, 60}; p.pins = 4 }, "", true, BoundaryPins, 1},
		{"system", func(p *requestPrint) { p.msgs[0] = partPrint{8, 60}; p.system = 10 }, "", true, BoundarySystem, 0},
		{"rewound", func(p *requestPrint) { p.msgs = p.msgs[:1]; p.history = 2 }, "", true, BoundaryHistory, 1},
		{"announced", func(p *requestPrint) { p.tools = printed(partPrint{6, 130}) }, BoundaryEffort, true, BoundaryEffort, -1},
		{"unexplained", func(p *requestPrint) { p.msgs[1] = partPrint{9, 50} }, "", true, BoundaryUnexplained, 1},
	} {
		next := base()
		c.change(next)
		v := judgePrints(base(), next, c.announced)
		if v.broken != c.broken || v.reason != c.reason || v.at != c.at {
			t.Errorf("%s: broken %v reason %q at %d, want %v %q %d", c.name, v.broken, v.reason, v.at, c.broken, c.reason, c.at)
		}
	}
	if v := judgePrints(base(), appended, ""); v.cachedShare != 200.0/400 {
		t.Errorf("appended: cached share %v, want 0.5 (the 200 bytes sent before of 400)", v.cachedShare)
	}
	if v := judgePrints(nil, base(), ""); v.broken || v.cachedShare != 0 {
		t.Errorf("a process's first request: %+v", v)
	}

	var w boundaryWatch
	w.announce(BoundaryEffort)
	if got := w.takeAnnounced(); got != BoundaryEffort || w.takeAnnounced() != "" {
		t.Errorf("announce: %q, then not cleared", got)
	}
}

// BenchmarkCacheReads is the walk expectedCached makes on the way from
// Enter to the request, over a resumed session's 4,000 messages none of
// which read from the cache (the whole walk).
func BenchmarkCacheReads(b *testing.B) {
	h := make([]message.Entry, 4000)
	for i := range h {
		h[i].Message.Role = message.RoleAssistant
	}
	for b.Loop() {
		if cacheReads(h) {
			b.Fatal("no cache reads in the history")
		}
	}
}
