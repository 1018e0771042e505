package loop

// The tools of a step: the registry Open was given, recall over the
// session's own history, the session's own tools (Options.SessionTools:
// the task tool) and whatever Options.Extra offers now (MCP servers that
// have connected). The extra tools go through a toolsearch.Catalog with a
// budget from the live model's window (config tool_search_threshold):
// every one of them runs, but when their schemas would cost more than the
// budget the model is offered tool_search and the tools it found instead
// of all of them. So there are two registries: the one that runs (every
// tool) and the one offered (what the request carries and the calculator
// counts as fixed tokens). refreshTools is the one place that decides; it
// runs before every step and rebuilds a registry only when its tools
// change, so a server that connects during a turn joins at the next step.
// A tool found by tool_search is called through call_tool until the next
// cache boundary, when it joins the tools offered (cacheboundary.go:
// the tools array heads the provider's cached prefix).

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/ctxloop/agent/internal/plan"
	"sync"

	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// toolTable is the registries of the current step.
type toolTable struct {
	mu    sync.Mutex
	base  *tools.Registry
	cat   *toolsearch.Catalog // over Options.Extra, made by the first refresh
	run   []tools.Tool        // the extra tools reg runs
	offer []tools.Tool        // the extra tools off offers
	reg   *tools.Registry     // base and every extra tool: what runs
	off   *tools.Registry     // base and the extra tools offered: what the model sees
	// joinedNow counts the tools the last join added, until a boundary
	// records them.
	joinedNow int
	// plan is what off offers in plan mode (planmode.go).
	plan planOffer
}

// catalogOptions configure the session's catalog. Tests set Immediate to
// measure a session without call_tool; nothing else changes them.
var catalogOptions = toolsearch.Options{}

// join lets the tools found since the last boundary join the offer; it
// reports whether the offer will change (see refreshTools).
func (tt *toolTable) join() bool {
	tt.mu.Lock()
	cat := tt.cat
	tt.mu.Unlock()
	if cat == nil {
		return false
	}
	before := len(cat.Joined())
	if !cat.Join() {
		return false
	}
	tt.mu.Lock()
	tt.joinedNow += max(0, len(cat.Joined())-before)
	tt.mu.Unlock()
	return true
}

// joined returns the joined tools and how many joined since it was last
// asked.
func (tt *toolTable) joined() (names []string, now int) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.cat == nil {
		return nil, 0
	}
	now, tt.joinedNow = tt.joinedNow, 0
	return tt.cat.Joined(), now
}

// lastJoined is the tools the session's last recorded boundary joined:
// what its previous process offered by name.
func (sp *stepper) lastJoined() []string {
	row, ok, err := sp.store.LatestEventLogKind(context.Background(), sp.sessionID, CacheBoundaryKind)
	if err != nil || !ok {
		return nil
	}
	var b CacheBoundary
	if json.Unmarshal(row.Data, &b) != nil {
		return nil
	}
	return b.Joined
}

// registry returns the tools the session runs now.
func (sp *stepper) registry() *tools.Registry {
	sp.tt.mu.Lock()
	defer sp.tt.mu.Unlock()
	if sp.tt.reg == nil {
		return sp.tt.base
	}
	return sp.tt.reg
}

// offered returns the tools the model is offered now: the registry's, but
// only those of the extra tools the catalog chose.
func (sp *stepper) offered() *tools.Registry {
	sp.tt.mu.Lock()
	defer sp.tt.mu.Unlock()
	off := sp.tt.off
	if off == nil {
		off = sp.tt.base
	}
	return sp.tt.plan.offer(sp.opt.Mode, off)
}

// refreshTools picks up the tools Options.Extra has now and decides which
// of them are offered. It reports whether either set changed, and then
// updates the calculator's fixed tokens.
func (sp *stepper) refreshTools() bool {
	if sp.tt.plan.switched(sp.opt.Mode) {
		if c := sp.calc(); c != nil {
			c.SetFixed(sp.fixedTokens()) // the mode changed the tools offered
		}
	}
	if sp.opt.Extra == nil {
		return false
	}
	sp.tt.mu.Lock()
	if sp.tt.cat == nil {
		sp.tt.cat = toolsearch.New(plan.Source(sp.opt.Mode, sp.opt.Extra), catalogOptions)
		sp.tt.cat.Restore(sp.history())      // the tools a resumed session had found
		sp.tt.cat.SetJoined(sp.lastJoined()) // and offered
	}
	cat := sp.tt.cat
	sp.tt.mu.Unlock()
	window := sp.modelPricing().info.ContextWindow
	st := cat.Step(toolsearch.Budget(window, sp.opt.Config.ToolSearchThreshold),
		toolsearch.ToolLimit(window, sp.opt.Config.ToolSearchThreshold))
	sp.tt.mu.Lock()
	changed := false
	if sp.tt.reg == nil || !sameTools(st.Run, sp.tt.run) {
		sp.tt.run, sp.tt.reg = st.Run, sp.tt.base.With(st.Run...)
		changed = true
	}
	if sp.tt.off == nil || !sameTools(st.Offer, sp.tt.offer) {
		sp.tt.offer, sp.tt.off = st.Offer, sp.tt.base.With(st.Offer...)
		changed = true
	}
	sp.tt.mu.Unlock()
	if c := sp.calc(); changed && c != nil {
		c.SetFixed(sp.fixedTokens())
	}
	return changed
}

// sameTools reports whether a and b offer the same tools: names,
// descriptions and schemas (tools need not be comparable values).
func sameTools(a, b []tools.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name() != b[i].Name() || a[i].Description() != b[i].Description() ||
			!bytes.Equal(a[i].Parameters(), b[i].Parameters()) {
			return false
		}
	}
	return true
}
