// Package toolsearch keeps many MCP tools from eating the context. A
// Catalog wraps the tools of the MCP servers (an inner tools.Source) and
// decides, before every step, which of them the model is offered; the loop
// asks it through Step, its one entry point.
//
// The contract:
//
//   - While the inner tools' schemas cost no more than the budget (Budget:
//     tool_search_threshold of the window, at most MaxEagerTokens), all of
//     them are offered, and tool_search is not.
//   - Above it, no inner tool is offered but the active ones, and
//     tool_search{query} is offered instead. Its description says how many
//     tools the servers have and which servers they are; its result ranks
//     the tools by keyword match over name and description (Rank) and shows
//     the best MaxResults with their full JSON schemas. The tools it returns
//     become active: callable at once through call_tool{name, arguments}
//     (proxy.go), offered alongside tool_search with a schema that never
//     changes, and offered by their own names once they join (Join) at
//     the next cache boundary. So the tools array, which heads the
//     provider's cached prefix, changes only at a boundary the loop
//     records. Options.Immediate restores offering a found tool from the
//     next step on (what a session without the proxy would send).
//   - Every inner tool runs whether it is offered or not: a tool called by
//     name without a search runs like any other, and becomes active too.
//     Only the offer is limited, never what runs.
//   - At most MaxActive tools are active; the least recently used (found or
//     called) goes first. Joined tools are offered after tool_search and
//     call_tool in the order they became active; they count in the fixed
//     tokens like any offered tool. A tool evicted from the active set
//     stays offered until the next Join.
//   - A tool whose definition alone costs more than ToolLimit (the share
//     of the window tool_search defers at) is never offered: not among all
//     tools, not once found (tool_search says it matched but is too large,
//     with its size), not once called by name, not when a resumed session
//     had it active. It still runs if called, like any inner tool.
//   - Restore rebuilds the active set of a resumed session from its
//     history, oldest first: tool_search results (the names in their
//     "activated" metadata) and calls of SERVER__TOOL tools, directly or
//     through call_tool. The joined set it had is the loop's to restore
//     (SetJoined), from its last recorded boundary.
//
// A Catalog is safe for concurrent use: tool_search may run beside other
// read-only tools while the loop is between steps.
package toolsearch

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// Name is the search tool's name, as the model calls it.
const Name = "tool_search"

// Defaults of Options.
const (
	// DefaultMaxResults tools come back from one search: enough to choose
	// among, each with its whole schema (≈ 150 tokens), and no more.
	DefaultMaxResults = 5
	// DefaultMaxActive tools stay offered once found: two searches' worth.
	DefaultMaxActive = 10
)

// MaxEagerTokens caps Budget whatever the window: a tenth of a 1M-token
// window would send 100K tokens of schemas with every request, and the
// agent's own fixed overhead is ≈ 2,200 tokens. Below it a handful of
// servers' tools are sent whole (≈ 65 tools of ≈ 150 tokens); above it
// they are found through tool_search.
const MaxEagerTokens = 10_000

// Budget is the tokens the inner tools' schemas may cost and still all be
// offered: threshold (a fraction) of the window, at most MaxEagerTokens.
func Budget(windowTokens int64, threshold float64) int64 {
	b := int64(threshold * float64(windowTokens))
	return max(0, min(b, MaxEagerTokens))
}

// Cost estimates the tokens a tool's definition costs in a request: its
// name, description and schema at four bytes a token, and a few tokens of
// framing. It is the loop's own estimate of a tool (tokens.Chars).
func Cost(t tools.Tool) int64 {
	return int64((len(t.Name())+len(t.Description())+len(t.Parameters())+3)/4) + 8
}

// MinToolShare is the least share of the window ToolLimit allows one
// tool, whatever tool_search_threshold says: 0 there means "always
// defer", not "send no tool"; a tenth is the threshold's default.
const MinToolShare = 0.10

// ToolLimit is the most tokens one tool's definition may cost and still
// be sent: the share of the window tool_search defers at (threshold, at
// least MinToolShare), at most MaxEagerTokens. A tool over it would crowd
// out the conversation (a 240K-token schema in a 200K window ends every
// later request), so it is never offered. 0 (an unknown window) is no
// limit.
func ToolLimit(windowTokens int64, threshold float64) int64 {
	return Budget(windowTokens, max(threshold, MinToolShare))
}

// TooLarge reports whether t is over limitTokens (see ToolLimit).
func TooLarge(t tools.Tool, limitTokens int64) bool {
	return limitTokens > 0 && Cost(t) > limitTokens
}

// Options configure a Catalog; zero fields mean the defaults.
type Options struct {
	MaxResults int // tools one search returns
	MaxActive  int // tools offered at most once found; at least MaxResults
	// Immediate offers a found tool by its name from the next step on,
	// without call_tool: the tools array changes mid-stretch. For
	// measuring what the proxy saves; the loop never sets it.
	Immediate bool
}

// Catalog decides which of its inner tools are offered. The zero value is
// not usable; call New.
type Catalog struct {
	inner      tools.Source
	maxResults int
	maxActive  int
	immediate  bool

	mu     sync.Mutex
	active []activeTool // in the order they became active
	joined []string     // offered by their names (Join)
	clock  uint64       // the last use handed out
}

// activeTool is a tool found or called, and when it was last.
type activeTool struct {
	name string
	used uint64
}

// New returns a catalog over inner.
func New(inner tools.Source, opt Options) *Catalog {
	if opt.MaxResults <= 0 {
		opt.MaxResults = DefaultMaxResults
	}
	if opt.MaxActive <= 0 {
		opt.MaxActive = DefaultMaxActive
	}
	opt.MaxActive = max(opt.MaxActive, opt.MaxResults)
	return &Catalog{inner: inner, maxResults: opt.MaxResults, maxActive: opt.MaxActive, immediate: opt.Immediate}
}

// Step is what one step runs and offers.
type Step struct {
	// Run is every inner tool, and tool_search and call_tool when there
	// are any: what the registry can run.
	Run []tools.Tool
	// Offer is what the model is sent: all of Run but tool_search and
	// call_tool, or tool_search, call_tool and the joined tools.
	Offer []tools.Tool
	// Deferred counts the inner tools not offered.
	Deferred int
	// TooLarge names the inner tools over the limit of one tool: never
	// offered (ToolLimit).
	TooLarge []string
}

// Step decides this step's tools for a budget in tokens (see Budget) and
// the limit of one tool (see ToolLimit; 0: none). A tool over the limit
// runs but is never offered, and does not count in the budget.
func (c *Catalog) Step(budgetTokens, toolLimitTokens int64) Step {
	inner := c.inner.Tools()
	if len(inner) == 0 {
		return Step{}
	}
	search := newSearchTool(c, inner, toolLimitTokens)
	wrapped := make([]activating, len(inner))
	run := make([]tools.Tool, len(inner), len(inner)+2)
	var total int64
	var tooLarge []string
	for i, t := range inner {
		wrapped[i] = activating{Tool: t, c: c}
		run[i] = &wrapped[i]
		if TooLarge(t, toolLimitTokens) {
			tooLarge = append(tooLarge, t.Name())
			continue
		}
		total += Cost(t)
	}
	run = append(run, search, proxyTool{})
	if total <= budgetTokens {
		offer := run[:len(inner)]
		if len(tooLarge) > 0 {
			offer = make([]tools.Tool, 0, len(inner)-len(tooLarge))
			for i, t := range inner {
				if !TooLarge(t, toolLimitTokens) {
					offer = append(offer, run[i])
				}
			}
		}
		return Step{Run: run, Offer: offer, Deferred: len(tooLarge), TooLarge: tooLarge}
	}
	offer := []tools.Tool{search}
	if !c.immediate {
		offer = append(offer, proxyTool{})
	}
	head := len(offer)
	for _, i := range c.offeredActive(inner) {
		if !TooLarge(inner[i], toolLimitTokens) {
			offer = append(offer, run[i])
		}
	}
	return Step{Run: run, Offer: offer, Deferred: len(inner) - (len(offer) - head), TooLarge: tooLarge}
}

// offeredActive returns the indexes in inner of the tools offered by
// their names: the joined ones, or with Options.Immediate the active ones,
// in the order they became active; one inner lacks now (its server is
// down) is left out but stays.
func (c *Catalog) offeredActive(inner []tools.Tool) []int {
	c.mu.Lock()
	names := c.joined
	if c.immediate {
		names = make([]string, len(c.active))
		for i, a := range c.active {
			names[i] = a.name
		}
	}
	names = append([]string(nil), names...)
	c.mu.Unlock()
	return indexesOf(inner, names)
}

// indexesOf returns, for each name present in ts, its index in ts, in the
// order of names.
func indexesOf(ts []tools.Tool, names []string) []int {
	if len(names) == 0 {
		return nil
	}
	pos := make(map[string]int, len(names))
	for i, n := range names {
		pos[n] = i
	}
	found := make([]int, len(names))
	for i := range found {
		found[i] = -1
	}
	for i, t := range ts {
		if p, ok := pos[t.Name()]; ok && found[p] < 0 {
			found[p] = i
		}
	}
	out := found[:0]
	for _, i := range found {
		if i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// Active returns the names of the active tools, in the order they became
// active.
func (c *Catalog) Active() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, len(c.active))
	for i, a := range c.active {
		names[i] = a.name
	}
	return names
}

// activate marks names used now, in this order (the last is the most
// recent), adding those not active and evicting the least recently used
// beyond MaxActive.
func (c *Catalog) activate(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active = activated(c.active, c.maxActive, &c.clock, names...)
}

// activated is the pure decision behind activate: the active list after
// names are used, oldest use evicted first beyond limit, the survivors kept
// in the order they became active.
func activated(list []activeTool, limit int, clock *uint64, names ...string) []activeTool {
	for _, name := range names {
		*clock++
		found := false
		for i := range list {
			if list[i].name == name {
				list[i].used = *clock
				found = true
				break
			}
		}
		if !found {
			list = append(list, activeTool{name: name, used: *clock})
		}
	}
	for len(list) > limit {
		oldest := 0
		for i := range list {
			if list[i].used < list[oldest].used {
				oldest = i
			}
		}
		list = append(list[:oldest], list[oldest+1:]...)
	}
	return list
}

// Restore activates again what a session's history activated, oldest
// first: the tools tool_search returned and the SERVER__TOOL tools called.
// The servers need not be connected yet: an active tool is offered once
// its server offers it.
func (c *Catalog) Restore(history []message.Entry) {
	var names []string
	for _, e := range history {
		for _, p := range e.Parts {
			if p.Tool != nil {
				names = append(names, ActivatedBy(*p.Tool)...)
			}
		}
	}
	if len(names) > 0 {
		c.activate(names...)
	}
}

// ActivatedBy returns the tools a tool call of the history activated: the
// names a tool_search result lists in its "activated" metadata, or the
// tool itself when it is an MCP tool (SERVER__TOOL).
func ActivatedBy(call message.ToolState) []string {
	if call.Name == Name {
		switch v := call.Metadata["activated"].(type) {
		case []string:
			return v
		case []any: // as decoded from the database
			var names []string
			for _, n := range v {
				if s, ok := n.(string); ok {
					names = append(names, s)
				}
			}
			return names
		}
		return nil
	}
	if name, _, ok := proxied(call.Name, json.RawMessage(call.Input)); ok {
		call.Name = name
	}
	if strings.Contains(call.Name, "__") {
		return []string{call.Name}
	}
	return nil
}

// activating is an inner tool that becomes active when it runs.
type activating struct {
	tools.Tool
	c *Catalog
}

func (a *activating) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	a.c.activate(a.Name())
	return a.Tool.Run(ctx, env, call)
}

// PermissionKeys keeps the inner tool's permission: a tool from outside
// the agent asks before it runs (tools.Gated), whether or not it is
// wrapped; an inner tool that names no keys is gated by its own name.
func (a *activating) PermissionKeys() []string {
	if g, ok := a.Tool.(tools.Gated); ok {
		return g.PermissionKeys()
	}
	return []string{a.Name()}
}

// servers counts the tools of each server (the part of a name before
// "__"; "" for a tool without one), by name. Servers are few and their
// tools mostly listed together: a short list beats a map.
func servers(ts []tools.Tool) (names []string, counts map[string]int) {
	type server struct {
		name string
		n    int
	}
	var list []server
	last := -1
	for _, t := range ts {
		name := t.Name()
		s := ""
		if i := strings.Index(name, "__"); i >= 0 {
			s = name[:i]
		}
		if last < 0 || list[last].name != s {
			last = -1
			for i := range list {
				if list[i].name == s {
					last = i
					break
				}
			}
			if last < 0 {
				list = append(list, server{name: s})
				last = len(list) - 1
			}
		}
		list[last].n++
	}
	counts = make(map[string]int, len(list))
	for _, s := range list {
		names = append(names, s.name)
		counts[s.name] = s.n
	}
	sort.Strings(names)
	return names, counts
}
