package mcp

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/sandbox"
)

// A stdio server whose entry opts into the sandbox runs in it (PID 1 of
// its own namespace, a private TMPDIR); one that does not, as before.
func TestStdioServerOptsIntoTheSandbox(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		t.Skipf("skipping: no sandbox on this machine (%v)", err)
	}
	confined := mcptest.Stdio(t, nil)
	confined.Sandbox = "workspace-write"
	s := start(t, map[string]config.MCPServer{"t": confined, "h": mcptest.Stdio(t, nil)}, Options{})
	ready(t, s)
	if res := call(t, s, "t__pid", nil); res.IsError || strings.TrimSpace(res.Output) != "1" {
		t.Errorf("the confined server's pid = %q, want 1 (its own PID namespace)", res.Output)
	}
	if res := call(t, s, "t__getenv", map[string]any{"name": "TMPDIR"}); !strings.Contains(res.Output, "agent-sandbox-") {
		t.Errorf("the confined server's TMPDIR = %q", res.Output)
	}
	if res := call(t, s, "h__pid", nil); res.IsError || strings.TrimSpace(res.Output) == "1" {
		t.Errorf("the unconfined server's pid = %q", res.Output)
	}
}
