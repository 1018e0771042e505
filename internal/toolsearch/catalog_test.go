package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
	"github.com/ctxloop/agent/internal/toolsearch/toolsearchtest"
)

func names(ts []tools.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}

// run calls a tool through a registry of the step's run set, as the loop
// does (the input is validated against the schema first).
func run(t *testing.T, st toolsearch.Step, name, input string) tools.Result {
	t.Helper()
	reg := tools.NewRegistry().With(st.Run...)
	return reg.Run(context.Background(), &tools.Env{Dir: t.TempDir()}, tools.Call{ID: "c", Name: name, Input: json.RawMessage(input)})
}

func TestBudget(t *testing.T) {
	for _, c := range []struct {
		window    int64
		threshold float64
		want      int64
	}{
		{32768, 0.10, 3276},
		{64000, 0.10, 6400},
		{128000, 0.10, 10000}, // 12,800 capped
		{1047576, 0.10, toolsearch.MaxEagerTokens},
		{200000, 0, 0}, // always defer
		{0, 0.10, 0},
	} {
		if got := toolsearch.Budget(c.window, c.threshold); got != c.want {
			t.Errorf("Budget(%d, %v) = %d, want %d", c.window, c.threshold, got, c.want)
		}
	}
}

// TestBelowTheBudgetAllAreOffered: tools whose schemas fit are all offered,
// in the source's order, and tool_search is not (it can still run).
func TestBelowTheBudgetAllAreOffered(t *testing.T) {
	ts := toolsearchtest.Tools(10)
	var cost int64
	for _, x := range ts {
		cost += toolsearch.Cost(x)
	}
	c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})
	st := c.Step(cost, 0)
	if got, want := names(st.Offer), names(ts); !slices.Equal(got, want) {
		t.Fatalf("offer = %v, want %v", got, want)
	}
	if st.Deferred != 0 || !slices.Contains(names(st.Run), toolsearch.Name) || len(st.Run) != 12 {
		t.Fatalf("deferred %d, run %v", st.Deferred, names(st.Run))
	}
	// One token over: none is offered but tool_search and call_tool.
	st = c.Step(cost-1, 0)
	if got := names(st.Offer); !slices.Equal(got, searchAndProxy) || st.Deferred != 10 {
		t.Fatalf("over the budget: offer %v, deferred %d", got, st.Deferred)
	}
}

func TestNoToolsNoSearch(t *testing.T) {
	c := toolsearch.New(toolsearchtest.NewSource(nil), toolsearch.Options{})
	if st := c.Step(0, 0); len(st.Run) != 0 || len(st.Offer) != 0 {
		t.Fatalf("step of no tools = %+v", st)
	}
}

// searchAndProxy is the offer of a catalog over the budget before any
// tool joined.
var searchAndProxy = []string{toolsearch.Name, toolsearch.ProxyName}

// TestAboveTheBudgetSearchFindsAndActivates: with 100 tools over the
// budget only tool_search and call_tool are offered, tool_search's
// description counts the tools and names the servers, and a search
// returns at most five tools with their schemas, which are callable at
// once through call_tool and offered by their names once they join.
func TestAboveTheBudgetSearchFindsAndActivates(t *testing.T) {
	ts := toolsearchtest.Tools(100)
	c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})
	st := c.Step(toolsearch.MaxEagerTokens, 0)
	if got := names(st.Offer); !slices.Equal(got, searchAndProxy) || st.Deferred != 100 {
		t.Fatalf("offer %v, deferred %d", got, st.Deferred)
	}
	desc := st.Offer[0].Description()
	for _, want := range []string{"100 tools", "browser (10)", "github (10)", "sentry (10)", "and 2 more servers"} {
		if !strings.Contains(desc, want) {
			t.Errorf("tool_search's description lacks %q: %s", want, desc)
		}
	}

	res := run(t, st, toolsearch.Name, `{"query":"create issue on github"}`)
	if res.IsError {
		t.Fatalf("search failed: %s", res.Output)
	}
	found, _ := res.Metadata["activated"].([]string)
	if len(found) != toolsearch.DefaultMaxResults || found[0] != "github__create_issue" {
		t.Fatalf("found %v, want github__create_issue first of five", found)
	}
	byName := map[string]tools.Tool{}
	for _, x := range ts {
		byName[x.Name()] = x
	}
	if schema := string(byName["github__create_issue"].Parameters()); !strings.Contains(res.Output, "github__create_issue\n") || !strings.Contains(res.Output, schema) {
		t.Errorf("the result lacks the tool's name or schema:\n%s", res.Output)
	}

	// Until a boundary joins them, the tools array stays as it was.
	if got := names(c.Step(toolsearch.MaxEagerTokens, 0).Offer); !slices.Equal(got, searchAndProxy) || !c.Pending() {
		t.Fatalf("before the join: offer %v, pending %v", got, c.Pending())
	}
	if !c.Join() || c.Join() || c.Pending() {
		t.Fatal("Join reports no change, or a second Join one")
	}
	st = c.Step(toolsearch.MaxEagerTokens, 0)
	want := append(slices.Clone(searchAndProxy), found...)
	slices.Sort(want[2:])
	got := names(st.Offer)
	slices.Sort(got[2:])
	if !slices.Equal(got, want) || st.Deferred != 95 {
		t.Fatalf("after the search: offer %v (deferred %d), want %v", got, st.Deferred, want)
	}
	// The offered tool runs (through the catalog's wrapper).
	if res := run(t, st, "github__create_issue", `{"issue_id":"7"}`); res.IsError || !strings.Contains(res.Output, "github__create_issue ran") {
		t.Fatalf("the found tool's call = %+v", res)
	}
}

// TestDeferredToolCalledByNameRunsAndActivates: a tool never searched for
// is not offered, yet its call runs, and it is offered once it joins.
func TestDeferredToolCalledByNameRunsAndActivates(t *testing.T) {
	c := toolsearch.New(toolsearchtest.NewSource(toolsearchtest.Tools(100)), toolsearch.Options{})
	st := c.Step(0, 0)
	if slices.Contains(names(st.Offer), "slack__get_user") {
		t.Fatal("a deferred tool is offered")
	}
	if res := run(t, st, "slack__get_user", `{"user_id":"u1"}`); res.IsError || !strings.Contains(res.Output, "slack__get_user ran") {
		t.Fatalf("the deferred call = %+v", res)
	}
	c.Join()
	if got := names(c.Step(0, 0).Offer); !slices.Equal(got, append(slices.Clone(searchAndProxy), "slack__get_user")) {
		t.Fatalf("after the call: offer %v", got)
	}
}

// TestActiveToolsAreBoundedLeastRecentlyUsedFirst: beyond MaxActive the
// tool found or called longest ago goes; the rest keep the order they
// became active in.
func TestActiveToolsAreBoundedLeastRecentlyUsedFirst(t *testing.T) {
	ts := toolsearchtest.Tools(100)
	c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{MaxResults: 1, MaxActive: 3})
	search := func(q string) {
		t.Helper()
		if res := run(t, c.Step(0, 0), toolsearch.Name, fmt.Sprintf(`{"query":%q}`, q)); res.IsError {
			t.Fatal(res.Output)
		}
	}
	search("github__create_issue")
	search("jira__create_issue")
	search("slack__create_issue")
	run(t, c.Step(0, 0), "github__create_issue", `{"issue_id":"1"}`) // used again: now the most recent
	search("postgres__create_issue")                                 // evicts jira's, the least recently used
	want := []string{"github__create_issue", "slack__create_issue", "postgres__create_issue"}
	if got := c.Active(); !slices.Equal(got, want) {
		t.Fatalf("active = %v, want %v", got, want)
	}
	c.Join()
	if got := names(c.Step(0, 0).Offer); !slices.Equal(got, append(slices.Clone(searchAndProxy), want...)) {
		t.Fatalf("offer = %v", got)
	}
}

// TestRestoreFromHistory: a resumed session's active tools come from its
// history (tool_search results as stored, calls of SERVER__TOOL), and an
// active tool whose server is not connected yet is offered once it is.
func TestRestoreFromHistory(t *testing.T) {
	history := []message.Entry{
		{Parts: []message.Part{
			{Type: message.PartTool, Tool: &message.ToolState{Name: toolsearch.Name, Metadata: map[string]any{"activated": []any{"jira__list_comment", "github__search_file"}}}},
			{Type: message.PartTool, Tool: &message.ToolState{Name: "bash"}},
		}},
		{Parts: []message.Part{
			{Type: message.PartText},
			{Type: message.PartTool, Tool: &message.ToolState{Name: "slack__get_user"}},
			{Type: message.PartTool, Tool: &message.ToolState{Name: toolsearch.Name, Status: message.ToolError}}, // a failed search activated nothing
		}},
	}
	src := toolsearchtest.NewSource(nil)
	c := toolsearch.New(src, toolsearch.Options{})
	c.Restore(history)
	want := []string{"jira__list_comment", "github__search_file", "slack__get_user"}
	if got := c.Active(); !slices.Equal(got, want) {
		t.Fatalf("active after restore = %v, want %v", got, want)
	}
	if st := c.Step(0, 0); len(st.Offer) != 0 {
		t.Fatalf("no server yet: offer %v", names(st.Offer))
	}
	src.Set(toolsearchtest.Tools(100))
	c.SetJoined(want) // as the session's last boundary recorded them
	got := names(c.Step(0, 0).Offer)
	if !slices.Equal(got, append(slices.Clone(searchAndProxy), want...)) {
		t.Fatalf("servers up: offer %v", got)
	}
}

// TestWrappedToolsStayGated: the tools the catalog runs keep the
// permission of a tool from outside the agent (they ask by default), so a
// deferred MCP tool does not slip past the permission check.
func TestWrappedToolsStayGated(t *testing.T) {
	ts := toolsearchtest.Tools(3)
	c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})
	for _, budget := range []int64{1 << 30, 1} {
		for _, x := range c.Step(budget, 0).Run {
			if x.Name() == toolsearch.Name {
				continue
			}
			g, ok := x.(tools.Gated)
			if !ok || len(g.PermissionKeys()) == 0 || g.PermissionKeys()[0] != x.Name() {
				t.Fatalf("budget %d: %s is not gated by its name (%T)", budget, x.Name(), x)
			}
		}
	}
}
