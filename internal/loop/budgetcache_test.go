package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// cachedStep is a tool-call step whose usage says 100K prompt tokens, all
// but 2K of them read from the cache, and 1K of output: $0.061 at
// gpt-4.1's $2 input, $0.50 cache read and $8 output per million.
func cachedStep(id string) pt.Step {
	return pt.Reply(append(pt.ToolCallChunks(0, id, "bash", `{"command":"echo `+id+`"}`, 1),
		pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 100000, Cached: 98000, Completion: 1000}))...)
}

// TestBudgetPricesTheCachedPrefix: a cache-heavy session near its cap goes
// on. Each request of ~100K tokens, all but the last step's few hundred
// bytes the prefix the one before sent, reserves about $0.05 of input at
// the cache-read price and its least output ($0.033); five steps ($0.305)
// and the last one fit the $0.40 cap. Priced at the full input price
// ($0.20 of input) the fourth request did not ($0.183 spent + $0.233),
// and the session stopped with $0.22 of its cap unspent. (A provider that
// never reports a cache read gets no discount:
// TestMaxCostStopsBeforeTheStepThatWouldPassIt.)
func TestBudgetPricesTheCachedPrefix(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.MaxCostUSD, o.TrustUsage = 0.40, true },
		cachedStep("a"), cachedStep("b"), cachedStep("c"), cachedStep("d"), cachedStep("e"), pt.Text("done"))
	res := h.turn("go")
	if res.Err != nil || res.FinishReason != "stop" || res.Steps != 6 {
		t.Fatalf("turn = %+v, want all 6 steps under the $0.40 cap", res)
	}
	if cost := h.r.Session().CostUSD; cost > 0.40 {
		t.Errorf("session cost $%.3f passed the cap", cost)
	}
}

// TestInputCostUSD: the cached part at the cache-read price, the rest at
// the input price; no cache-read price means full price.
func TestInputCostUSD(t *testing.T) {
	for _, c := range []struct {
		p             config.Price
		input, cached int64
		want          float64
	}{
		{config.Price{Input: 2, CacheRead: 0.5}, 1_000_000, 0, 2},
		{config.Price{Input: 2, CacheRead: 0.5}, 1_000_000, 1_000_000, 0.5},
		{config.Price{Input: 2, CacheRead: 0.5}, 1_000_000, 600_000, 0.8 + 0.3},
		{config.Price{Input: 2}, 1_000_000, 600_000, 2},
		{config.Price{Input: 2, CacheRead: 0.5}, 1_000, 5_000, 0.0005}, // more cached than input: all of it
	} {
		if got := inputCostUSD(c.p, c.input, c.cached); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("inputCostUSD(%+v, %d, %d) = %v, want %v", c.p, c.input, c.cached, got, c.want)
		}
	}
}
