package mcp

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
)

// A failed server restarts by hand (the /mcp panel) and Changes says so.
func TestRestartAFailedServer(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)}, Options{MaxRestarts: -1})
	ready(t, s)
	<-s.Changes() // connected
	if res := call(t, s, "t__crash", nil); !res.IsError {
		t.Fatalf("crash: %+v", res)
	}
	waitFor(t, func() bool { return statusOf(s, "t").State == StateFailed })
	if err := s.Restart("t"); err != nil {
		t.Fatal(err)
	}
	ready(t, s)
	if st := statusOf(s, "t"); st.State != StateConnected {
		t.Fatalf("after the restart: %+v", st)
	}
	select {
	case <-s.Changes():
	default:
		t.Error("no change signalled")
	}
	if res := call(t, s, "t__echo", map[string]any{"text": "back"}); res.IsError || res.Output != "back" {
		t.Errorf("echo after the restart: %+v", res)
	}
	if err := s.Restart("nope"); err == nil || !strings.Contains(err.Error(), "no MCP server nope") {
		t.Errorf("unknown server: %v", err)
	}
}
