package loop

// The tools of a step: the registry Open was given, recall over the
// session's own history, the session's own tools (Options.SessionTools:
// the task tool) and whatever Options.Extra offers now (MCP servers that
// have connected). The table is rebuilt only when the extra tools change,
// before a step, so a server that connects during a turn joins at the next
// step and the fixed tokens the calculator counts follow.

import (
	"bytes"
	"sync"

	"github.com/ctxloop/agent/internal/tools"
)

// toolTable is the registry of the current step.
type toolTable struct {
	mu    sync.Mutex
	base  *tools.Registry
	extra []tools.Tool // what Options.Extra returned when reg was built
	reg   *tools.Registry
}

// registry returns the tools the session runs now.
func (r *Runner) registry() *tools.Registry {
	r.tt.mu.Lock()
	defer r.tt.mu.Unlock()
	if r.tt.reg == nil {
		return r.tt.base
	}
	return r.tt.reg
}

// refreshTools picks up the tools Options.Extra offers now. It reports
// whether they changed, and then updates the calculator's fixed tokens.
func (r *Runner) refreshTools() bool {
	if r.opt.Extra == nil {
		return false
	}
	extra := r.opt.Extra.Tools()
	r.tt.mu.Lock()
	if r.tt.reg != nil && sameTools(extra, r.tt.extra) {
		r.tt.mu.Unlock()
		return false
	}
	r.tt.extra = extra
	r.tt.reg = r.tt.base.With(extra...)
	r.tt.mu.Unlock()
	if c := r.calc(); c != nil {
		c.SetFixed(r.fixedTokens())
	}
	return true
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
