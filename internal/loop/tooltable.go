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
// change, so a server that connects during a turn joins at the next step
// and a tool found by tool_search is offered from the next step on.

import (
	"bytes"
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
	if sp.tt.off == nil {
		return sp.tt.base
	}
	return sp.tt.off
}

// refreshTools picks up the tools Options.Extra has now and decides which
// of them are offered. It reports whether either set changed, and then
// updates the calculator's fixed tokens.
func (sp *stepper) refreshTools() bool {
	if sp.opt.Extra == nil {
		return false
	}
	sp.tt.mu.Lock()
	if sp.tt.cat == nil {
		sp.tt.cat = toolsearch.New(sp.opt.Extra, toolsearch.Options{})
		sp.tt.cat.Restore(sp.history()) // the tools a resumed session had found
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
