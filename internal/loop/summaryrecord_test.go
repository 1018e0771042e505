package loop

import (
	"context"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestSummaryMessageStoresUsageCostAndParent (issue 27 item 8): the
// summary message a compaction stores carries the usage and cost of the
// requests that wrote it and its parent (the compaction's marker), like
// any assistant message; the session's totals include that cost.
func TestSummaryMessageStoresUsageCostAndParent(t *testing.T) {
	h := newHarness(t, pt.Text(long("one", 3)), pt.Text(long("two", 3)), pt.Text(long("three", 3)), pt.Text(summaryText))
	ctx := context.Background()
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	before := h.r.Session().CostUSD
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	hist, err := h.store.LoadHistory(ctx, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range hist {
		m := e.Message
		if !m.Summary {
			continue
		}
		if m.Usage.Input == 0 || m.Usage.Output == 0 || m.CostUSD <= 0 {
			t.Errorf("summary message usage %+v, cost %v: want those of its request", m.Usage, m.CostUSD)
		}
		if m.ParentID == "" || m.ParentID != hist[i-1].Message.ID {
			t.Errorf("summary parent = %q, want the marker %q", m.ParentID, hist[i-1].Message.ID)
		}
		if got := h.r.Session().CostUSD - before; got < m.CostUSD*0.999 || got > m.CostUSD*1.001 {
			t.Errorf("the session's cost grew by %v, the summary cost %v", got, m.CostUSD)
		}
		return
	}
	t.Fatal("no summary message stored")
}
