package loop

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// lateTool is a tool of a source that appears during a session.
type lateTool struct{ name string }

func (l lateTool) Name() string        { return l.name }
func (l lateTool) Description() string { return "a tool that arrives late" }
func (l lateTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
}
func (l lateTool) ReadOnly() bool { return true }
func (l lateTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	return tools.Result{Output: "late answer to " + string(call.Input)}, nil
}

// lateSource offers nothing until it has been asked readyAt times.
type lateSource struct {
	mu      sync.Mutex
	asked   int
	readyAt int
}

func (s *lateSource) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	if s.asked < s.readyAt {
		return nil
	}
	return []tools.Tool{lateTool{"srv__lookup"}}
}

func requestToolNames(h *harness, n int) string {
	var names []string
	for _, t := range h.srv.Requests()[n].Chat.Tools {
		names = append(names, t.Function.Name)
	}
	return strings.Join(names, ",")
}

// TestExtraToolsJoinAtTheNextStep: a source's tools that become available
// during a turn (asked at Open, then before each step: ready at the second
// step) are offered from the next step on, run like built-in tools, and
// counted in the calculator's fixed tokens.
func TestExtraToolsJoinAtTheNextStep(t *testing.T) {
	src := &lateSource{readyAt: 3}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = src },
		pt.ToolCalls(pt.Call{ID: "c1", Name: "ls", Args: `{}`}),
		pt.ToolCalls(pt.Call{ID: "c2", Name: "srv__lookup", Args: `{"q":"x"}`}),
		pt.Text("done"),
	)
	before := h.r.Reading().Breakdown.Tools
	if res := h.turn("go"); res.Err != nil || res.Steps != 3 {
		t.Fatalf("turn = %+v", res)
	}
	if got := requestToolNames(h, 0); strings.Contains(got, "srv__lookup") {
		t.Fatalf("first request offered the tool before it was ready: %s", got)
	}
	if got := requestToolNames(h, 1); !strings.Contains(got, "srv__lookup") {
		t.Fatalf("second request lacks the tool that became ready: %s", got)
	}
	var result string
	for _, m := range h.request(2) {
		if m.ToolCallID == "c2" {
			result = m.Content
		}
	}
	if !strings.Contains(result, `late answer to {"q":"x"}`) {
		t.Fatalf("the late tool's result = %q", result)
	}
	if after := h.r.Reading().Breakdown.Tools; after <= before {
		t.Fatalf("tool tokens %d → %d: the late tool's schema is not counted", before, after)
	}
}
