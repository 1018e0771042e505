package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
	"github.com/ctxloop/agent/internal/toolsearch/toolsearchtest"
)

// maxFixedOverheadBytes is what a request may carry besides the
// conversation with 100 MCP tools configured: issue 19's 12 KB, and 1 KB
// for the built-in tools issues 29–31 added (call_tool, todo_write,
// todo_read, bash_output, bash_kill: ≈ 1.5 KB of schemas, partly paid
// for by shorter descriptions).
const maxFixedOverheadBytes = 13 * 1024

// fixedOverheadBytes measures a request as the server received it: its
// system messages and its tools, in JSON bytes.
func fixedOverheadBytes(t *testing.T, req pt.Request) (system, tools int) {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		var role struct{ Role string }
		if err := json.Unmarshal(m, &role); err != nil {
			t.Fatal(err)
		}
		if role.Role == "system" {
			system += len(m)
		}
	}
	return system, len(body.Tools)
}

// toolsJSON is a request's tools array as the server received it.
func toolsJSON(t *testing.T, req pt.Request) string {
	t.Helper()
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	return string(body.Tools)
}

func requestTools(h *harness, n int) []string {
	var names []string
	for _, t := range h.srv.Requests()[n].Chat.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

func mcpTools(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.Contains(n, "__") {
			out = append(out, n)
		}
	}
	return out
}

func has(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// TestLazyToolLoadingWith100Tools: with 100 MCP tools (300–600-byte
// schemas) configured, the first request carries tool_search and
// call_tool and none of them, and its fixed overhead (system messages and
// tools as sent) stays under 12 KB; after a tool_search step the tools
// array is as it was (the cached prefix holds), a found tool runs through
// call_tool, and the found tools join the array at the next boundary.
func TestLazyToolLoadingWith100Tools(t *testing.T) {
	src := toolsearchtest.NewSource(toolsearchtest.Tools(100))
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = src },
		pt.ToolCalls(pt.Call{ID: "c1", Name: toolsearch.Name, Args: `{"query":"create issue in github"}`}),
		pt.ToolCalls(pt.Call{ID: "c2", Name: toolsearch.ProxyName, Args: `{"name":"github__create_issue","arguments":{"issue_id":"42"}}`}),
		pt.Text("done"),
		pt.Text("again"),
	)
	before := h.r.Reading().Breakdown.Tools
	if res := h.turn("file an issue"); res.Err != nil || res.Steps != 3 {
		t.Fatalf("turn = %+v", res)
	}
	first := requestTools(h, 0)
	if !has(first, toolsearch.Name) || !has(first, toolsearch.ProxyName) || len(mcpTools(first)) != 0 {
		t.Fatalf("first request's tools: %v", first)
	}
	sys, tl := fixedOverheadBytes(t, h.srv.Requests()[0])
	t.Logf("fixed overhead with 100 MCP tools: %d bytes (system %d, tools %d)", sys+tl, sys, tl)
	if sys+tl >= maxFixedOverheadBytes {
		t.Errorf("fixed overhead with 100 MCP tools = %d bytes, want < %d", sys+tl, maxFixedOverheadBytes)
	}
	for n := 1; n < 3; n++ {
		if got := toolsJSON(t, h.srv.Requests()[n]); got != toolsJSON(t, h.srv.Requests()[0]) {
			t.Fatalf("request %d's tools array changed mid-stretch: %v", n, requestTools(h, n))
		}
	}
	var searched, ran string
	for _, m := range h.request(2) {
		switch m.ToolCallID {
		case "c1":
			searched = m.Content
		case "c2":
			ran = m.Content
		}
	}
	if !strings.Contains(searched, "github__create_issue\n") || !strings.Contains(searched, `"issue_id"`) || !strings.Contains(searched, toolsearch.ProxyName) {
		t.Errorf("tool_search's result:\n%s", searched)
	}
	if !strings.Contains(ran, `github__create_issue ran with {"issue_id":"42"}`) {
		t.Errorf("the found tool's result through call_tool = %q", ran)
	}

	// A boundary (a pin here): the found tools join the array, and the
	// calculator counts their schemas.
	if _, err := h.r.AddPin(context.Background(), "use the staging repo", ""); err != nil {
		t.Fatal(err)
	}
	h.turn("again")
	second := requestTools(h, 3)
	found := mcpTools(second)
	if !has(second, "github__create_issue") || len(found) != toolsearch.DefaultMaxResults || !has(second, toolsearch.Name) {
		t.Fatalf("tools after the boundary: %v", second)
	}
	if after := h.r.Reading().Breakdown.Tools; after <= before {
		t.Errorf("tool tokens %d → %d: the found tools are not counted", before, after)
	}
	sys2, tl2 := fixedOverheadBytes(t, h.srv.Requests()[3])
	t.Logf("with the %d tools found: %d bytes", len(found), sys2+tl2)
}

// TestFixedOverheadWithoutMCP reports the fixed overhead of a request with
// no MCP tools, the figure the 12 KB above is measured against.
func TestFixedOverheadWithoutMCP(t *testing.T) {
	h := newHarness(t, pt.Text("hi"))
	h.turn("hello")
	sys, tl := fixedOverheadBytes(t, h.srv.Requests()[0])
	t.Logf("fixed overhead without MCP tools: %d bytes (system %d, tools %d: %v)", sys+tl, sys, tl, requestTools(h, 0))
	if has(requestTools(h, 0), toolsearch.Name) {
		t.Error("tool_search offered without any MCP tool")
	}
	if sys+tl >= maxFixedOverheadBytes {
		t.Errorf("fixed overhead = %d bytes", sys+tl)
	}
}

// TestFewMCPToolsAreAllSent: tools whose schemas fit the budget are all
// offered, without tool_search; tool_search_threshold 0 defers them anyway.
func TestFewMCPToolsAreAllSent(t *testing.T) {
	for _, c := range []struct {
		threshold float64
		lazy      bool
	}{{config.DefaultToolSearchThreshold, false}, {0, true}} {
		src := toolsearchtest.NewSource(toolsearchtest.Tools(20))
		h := newHarnessWith(t, func(o *Options, cfg *config.Config) {
			o.Extra = src
			cfg.ToolSearchThreshold = c.threshold
		}, pt.Text("hi"))
		h.turn("hello")
		got := requestTools(h, 0)
		if lazy := has(got, toolsearch.Name); lazy != c.lazy || len(mcpTools(got)) != 20*btoi(!c.lazy) {
			t.Errorf("threshold %v: tools %v", c.threshold, got)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestToolSearchFollowsTheModelsWindow: the budget comes from the live
// model's window, so /model to a small window defers the tools that a
// large one sent whole, and the calculator's fixed tokens follow.
func TestToolSearchFollowsTheModelsWindow(t *testing.T) {
	src := toolsearchtest.NewSource(toolsearchtest.Tools(20))
	h := newHarnessWith(t, func(o *Options, cfg *config.Config) {
		o.Extra = src
		cfg.Models["small-window"] = config.ModelInfo{ContextWindow: 16000, MaxOutput: 4000}
	}, pt.Text("one"), pt.Text("two"))
	h.turn("first")
	if got := mcpTools(requestTools(h, 0)); len(got) != 20 {
		t.Fatalf("1M window: MCP tools %v", got)
	}
	whole := h.r.Reading().Breakdown.Tools
	if err := h.r.SetModel(context.Background(), "small-window"); err != nil {
		t.Fatal(err)
	}
	if lazy := h.r.Reading().Breakdown.Tools; lazy >= whole {
		t.Errorf("tool tokens after /model: %d, before %d", lazy, whole)
	}
	h.turn("second")
	if got := requestTools(h, 1); !has(got, toolsearch.Name) || len(mcpTools(got)) != 0 {
		t.Fatalf("16K window: tools %v", got)
	}
}

// TestFoundToolsSurviveAResume: a session reopened offers the tools its
// tool_search found and a boundary joined, from its first request, and
// its tools array is the one the last process sent.
func TestFoundToolsSurviveAResume(t *testing.T) {
	src := toolsearchtest.NewSource(toolsearchtest.Tools(100))
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = src },
		pt.ToolCalls(pt.Call{ID: "c1", Name: toolsearch.Name, Args: `{"query":"jira__list_comment"}`}),
		pt.Text("found it"),
		pt.Text("pinned"),
	)
	h.turn("find the comment lister")
	if got := requestTools(h, 1); has(got, "jira__list_comment") {
		t.Fatalf("joined before a boundary: %v", got)
	}
	if _, err := h.r.AddPin(context.Background(), "comments are in jira", ""); err != nil {
		t.Fatal(err)
	}
	h.turn("go on")
	if got := requestTools(h, 2); !has(got, "jira__list_comment") {
		t.Fatalf("after the boundary: %v", got)
	}
	id := h.r.Session().ID
	h.r.Close()
	r2, err := Open(context.Background(), h.r.opt, id)
	if err != nil {
		t.Fatal(err)
	}
	h.r = r2
	h.srv.Add(pt.Text("again"))
	h.turn("list them")
	if got := requestTools(h, 3); !has(got, "jira__list_comment") || !has(got, toolsearch.Name) {
		t.Fatalf("the reopened session's first request: %v", got)
	}
	if toolsJSON(t, h.srv.Requests()[3]) != toolsJSON(t, h.srv.Requests()[2]) {
		t.Errorf("the reopened session's tools array differs from the last process's")
	}
}

// TestDeferredToolCalledWithoutASearchRuns: the model may call a tool it
// was never offered (it knows the name from an earlier session, or
// guesses it): it runs, and is offered from the next boundary on, not
// before (the tools array holds mid-stretch).
func TestDeferredToolCalledWithoutASearchRuns(t *testing.T) {
	src := toolsearchtest.NewSource(toolsearchtest.Tools(100))
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = src },
		pt.ToolCalls(pt.Call{ID: "c1", Name: "slack__get_user", Args: `{"user_id":"u1"}`}),
		pt.Text("done"),
	)
	h.turn("who is u1")
	if has(requestTools(h, 0), "slack__get_user") {
		t.Fatal("a deferred tool was offered")
	}
	var ran string
	for _, m := range h.request(1) {
		if m.ToolCallID == "c1" {
			ran = m.Content
		}
	}
	if !strings.Contains(ran, "slack__get_user ran") {
		t.Errorf("the deferred call's result = %q", ran)
	}
	if has(requestTools(h, 1), "slack__get_user") {
		t.Errorf("the called tool joined mid-stretch: %v", requestTools(h, 1))
	}
	if !slices.Contains(h.r.stepper.tt.cat.Active(), "slack__get_user") {
		t.Errorf("the called tool is not active: %v", h.r.stepper.tt.cat.Active())
	}
}

var _ tools.Source = (*toolsearchtest.Source)(nil)

// BenchmarkRefreshTools is the loop's per-step tool decision with many MCP
// tools configured and tool_search in force: the catalog's step and the
// comparison that keeps both registries unless something changed.
func BenchmarkRefreshTools(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			src := toolsearchtest.NewSource(toolsearchtest.Tools(n))
			h := newHarnessWith(b, func(o *Options, _ *config.Config) { o.Extra = src })
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if h.r.stepper.refreshTools() {
					b.Fatal("the tools changed")
				}
			}
		})
	}
}

// TestTooLargeToolNeverReachesARequest: an MCP tool whose schema alone is
// ≈250K tokens, in a 200K window: tool_search finds it and says it is too
// large, and no request carries it; every request stays well under the
// window (the request after the search included).
func TestTooLargeToolNeverReachesARequest(t *testing.T) {
	huge := toolsearchtest.Huge("big__huge_report", 1_000_000)
	src := toolsearchtest.NewSource(append(toolsearchtest.Tools(5), huge))
	const window = 200_000
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		o.Extra = src
		info, _ := c.ModelInfo("gpt-4.1")
		info.ContextWindow = window
		c.Models["gpt-4.1"] = info
	},
		pt.ToolCalls(pt.Call{ID: "c1", Name: toolsearch.Name, Args: `{"query":"huge report"}`}),
		pt.ToolCalls(pt.Call{ID: "c2", Name: huge.Name(), Args: `{"q":"x"}`}),
		pt.Text("done"),
	)
	if res := h.turn("make the report"); res.Err != nil || res.Steps != 3 {
		t.Fatalf("turn = %+v", res)
	}
	reqs := h.srv.Requests()
	for i, req := range reqs {
		if has(requestTools(h, i), huge.Name()) {
			t.Errorf("request %d offers the too-large tool", i)
		}
		if tokens := len(req.Body) / 4; tokens > window/10 {
			t.Errorf("request %d is ≈%d tokens", i, tokens)
		}
	}
	var searched string
	for _, m := range h.request(1) {
		if m.ToolCallID == "c1" {
			searched = m.Content
		}
	}
	if !strings.Contains(searched, huge.Name()+" matches but is too large") {
		t.Errorf("tool_search's result:\n%s", searched)
	}
}
