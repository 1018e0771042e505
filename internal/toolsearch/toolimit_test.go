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

func TestToolLimit(t *testing.T) {
	for _, c := range []struct {
		window    int64
		threshold float64
		want      int64
	}{
		{32768, 0.10, 3276},
		{200000, 0.10, toolsearch.MaxEagerTokens},
		{200000, 0, toolsearch.MaxEagerTokens}, // "always defer" still lets a tool be sent
		{32768, 0.02, 3276},                    // at least a tenth
		{32768, 0.5, 10000},                    // at most MaxEagerTokens
		{0, 0.10, 0},                           // unknown window: no limit
	} {
		if got := toolsearch.ToolLimit(c.window, c.threshold); got != c.want {
			t.Errorf("ToolLimit(%d, %v) = %d, want %d", c.window, c.threshold, got, c.want)
		}
	}
}

// TestTooLargeToolIsNeverOffered: a tool whose schema alone is over the
// limit is not offered among all tools, not once tool_search finds it
// (which says it matched but is too large, with its size), not once it is
// called by name, and not after a resumed session restores it as active.
// It still counts among the tools the servers have.
func TestTooLargeToolIsNeverOffered(t *testing.T) {
	const limit = 10_000
	huge := toolsearchtest.Huge("big__huge_report", 1_000_000) // ≈ 250K tokens
	ts := append(toolsearchtest.Tools(5), huge)
	c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})

	st := c.Step(1<<40, limit) // every other tool fits the budget
	if slices.Contains(names(st.Offer), huge.Name()) || !slices.Contains(names(st.Run), huge.Name()) {
		t.Fatalf("eager: offer %v", names(st.Offer))
	}
	if len(st.Offer) != 5 {
		t.Errorf("eager: the other tools are not all offered: %v", names(st.Offer))
	}

	st = c.Step(0, limit)
	res := run(t, st, toolsearch.Name, `{"query":"huge report"}`)
	if res.IsError || !strings.Contains(res.Output, huge.Name()) || !strings.Contains(res.Output, "too large") {
		t.Fatalf("the search's result: %+v", res)
	}
	cost := toolsearch.Cost(huge)
	if !strings.Contains(res.Output, fmt.Sprintf("%d tokens", cost)) && !strings.Contains(res.Output, commas(cost)+" tokens") {
		t.Errorf("the result does not give the tool's size (%d tokens):\n%s", cost, res.Output)
	}
	if strings.Contains(res.Output, "huge schema text huge schema text") {
		t.Errorf("the result carries the huge schema")
	}
	if slices.Contains(c.Active(), huge.Name()) {
		t.Error("the too-large tool became active")
	}
	if got := names(c.Step(0, limit).Offer); slices.Contains(got, huge.Name()) {
		t.Fatalf("after the search: offer %v", got)
	}

	// Called by name, it does not join the offer either.
	reg := tools.NewRegistry().With(st.Run...)
	reg.Run(context.Background(), &tools.Env{Dir: t.TempDir()}, tools.Call{ID: "c", Name: huge.Name(), Input: json.RawMessage(`{"q":"x"}`)})
	if got := names(c.Step(0, limit).Offer); slices.Contains(got, huge.Name()) {
		t.Fatalf("after a call by name: offer %v", got)
	}

	// A session that activated it before (an older agent) no longer sends it.
	r := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})
	r.Restore([]message.Entry{{Parts: []message.Part{{Type: message.PartTool, Tool: &message.ToolState{
		Name: toolsearch.Name, Metadata: map[string]any{"activated": []any{huge.Name(), ts[0].Name()}},
	}}}}})
	r.Join()
	if got := names(r.Step(0, limit).Offer); slices.Contains(got, huge.Name()) || !slices.Contains(got, ts[0].Name()) {
		t.Fatalf("resumed: offer %v", got)
	}
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
