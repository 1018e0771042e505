package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// spender is a session tool that reports what a child session would have
// spent, and what it saw of its session.
type spender struct {
	seen chan Parent
}

func (s spender) Name() string        { return "spend" }
func (s spender) Description() string { return "spends" }
func (s spender) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (s spender) ReadOnly() bool { return true }
func (s spender) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	p, _ := ParentOf(ctx)
	s.seen <- p
	md := map[string]any{}
	SetChildUsage(md, message.Usage{Input: 900000, Output: 1000}, 1.5)
	return tools.Result{Output: "short answer", Metadata: md}, nil
}

// TestChildUsageJoinsTheTotalsNotTheContext: a tool call sees its session
// (ParentOf); a result carrying a child's spending adds it to the session's
// stored and announced totals, and only the result's text to the
// calculator.
func TestChildUsageJoinsTheTotalsNotTheContext(t *testing.T) {
	sp := spender{seen: make(chan Parent, 1)}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		o.SessionTools = func(string) []tools.Tool { return []tools.Tool{sp} }
		o.MaxCostUSD = 50
	},
		pt.ToolCall("c1", "spend", `{}`),
		pt.Text("done"),
	)
	if res := h.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	p := <-sp.seen
	if p.ID != h.r.Session().ID || p.Model != "gpt-4.1" || p.Dir != h.dir || p.BudgetUSD != 50 || p.SpentUSD <= 0 || p.Options.Store != h.store {
		t.Errorf("the tool saw its session as %+v", p)
	}
	if _, ok := ParentOf(context.Background()); ok {
		t.Error("ParentOf outside a tool call")
	}

	var own message.Usage
	var ownCost float64
	for _, e := range h.r.History() {
		own = own.Add(e.Message.Usage)
		ownCost += e.Message.CostUSD
	}
	s := h.r.Session()
	if want := own.Add(message.Usage{Input: 900000, Output: 1000}); s.Usage != want || s.CostUSD < ownCost+1.5-1e-9 || s.CostUSD > ownCost+1.5+1e-9 {
		t.Errorf("session totals %+v $%v; want %+v $%v", s.Usage, s.CostUSD, want, ownCost+1.5)
	}
	stored, err := h.store.GetSession(context.Background(), s.ID)
	if err != nil || stored.Usage != s.Usage {
		t.Errorf("stored totals %+v, %v", stored, err)
	}
	if total := h.r.Reading().Total; total > 100000 {
		t.Errorf("the calculator counts the child's tokens: total %d", total)
	}
}
