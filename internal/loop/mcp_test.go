package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestMCPServerInATurn: a real stdio MCP server's tools, through
// Options.Extra, in one turn: a call that crashes the server, one that
// restarts it, one that hangs past its timeout. Each is a tool result the
// model reads, and the turn ends normally.
func TestMCPServerInATurn(t *testing.T) {
	spec := mcptest.Stdio(t, nil)
	spec.TimeoutS = 0.5
	servers := mcp.Start(context.Background(), map[string]config.MCPServer{"t": spec}, mcp.Options{Dir: t.TempDir()})
	defer servers.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = servers },
		pt.ToolCalls(pt.Call{ID: "c1", Name: "t__crash", Args: `{}`}),
		pt.ToolCalls(pt.Call{ID: "c2", Name: "t__echo", Args: `{"text":"back again"}`}),
		pt.ToolCalls(pt.Call{ID: "c3", Name: "t__hang", Args: `{}`}),
		pt.Text("done"),
	)
	began := time.Now()
	if res := h.turn("use the server"); res.Err != nil || res.Steps != 4 {
		t.Fatalf("turn = %+v", res)
	}
	if d := time.Since(began); d > 15*time.Second {
		t.Errorf("the turn took %v", d)
	}
	if got := requestToolNames(h, 0); !strings.Contains(got, "t__crash") {
		t.Fatalf("first request's tools: %s", got)
	}
	results := map[string]string{}
	for _, m := range h.request(3) {
		if m.ToolCallID != "" {
			results[m.ToolCallID] = m.Content
		}
	}
	for id, want := range map[string]string{"c1": "the server exited", "c2": "back again", "c3": "did not answer within 500ms"} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: %q, want %q", id, results[id], want)
		}
	}
}
