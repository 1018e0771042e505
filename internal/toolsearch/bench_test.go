package toolsearch_test

import (
	"fmt"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/toolsearch"
	"github.com/ctxloop/agent/internal/toolsearch/toolsearchtest"
)

// BenchmarkCatalogStep is the decision the loop makes before every step:
// all tools within the budget, or tool_search and ten active tools.
func BenchmarkCatalogStep(b *testing.B) {
	for _, n := range []int{100, 1000} {
		ts := toolsearchtest.Tools(n)
		for _, mode := range []struct {
			name   string
			budget int64
		}{{"all", 1 << 40}, {"deferred", toolsearch.MaxEagerTokens}} {
			b.Run(fmt.Sprintf("tools=%d/%s", n, mode.name), func(b *testing.B) {
				c := toolsearch.New(toolsearchtest.NewSource(ts), toolsearch.Options{})
				var found []message.Part // ten tools called: all active
				for _, t := range ts[n-toolsearch.DefaultMaxActive:] {
					found = append(found, message.Part{Type: message.PartTool, Tool: &message.ToolState{Name: t.Name()}})
				}
				c.Restore([]message.Entry{{Parts: found}})
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					st := c.Step(mode.budget, 0)
					if len(st.Run) != n+1 {
						b.Fatal(len(st.Run))
					}
				}
			})
		}
	}
}

// BenchmarkRank is one tool_search over 1,000 tools.
func BenchmarkRank(b *testing.B) {
	ts := toolsearchtest.Tools(1000)
	b.ReportAllocs()
	for b.Loop() {
		if len(toolsearch.Rank(ts, "create an issue in github")) == 0 {
			b.Fatal("no match")
		}
	}
}
