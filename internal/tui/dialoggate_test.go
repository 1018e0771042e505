package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestTabThenEnterWithinTheGraceApprovesNothing: Tab gives the question
// the keyboard with "allow once" highlighted, so a Tab meant for the
// editor (it queues a message) followed by Enter approved the call
// (hardening 2, item 9d). Enter within overlay.Grace of the focus or the
// highlight moving (Tab, Shift+Tab, ←→) confirms nothing; once the
// highlight has stood still that long, Enter confirms it.
func TestTabThenEnterWithinTheGraceApprovesNothing(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"touch APPROVED"}`), pt.Text("fine")})
	h.typeText("go")
	h.key("enter")
	h.waitScreen("Permission")
	h.waitFor("the dialog to take its keys", func(m *Model) bool { return m.questions.Armed() })
	marker := filepath.Join(h.dir, "APPROVED")

	h.key("tab")
	h.key("enter")
	if h.m.questions.Len() != 1 {
		t.Fatal("tab then enter answered the question")
	}
	// The highlight moved away and back: a move again.
	h.waitFor("the highlight to settle", func(m *Model) bool { return !m.questions.Moving() })
	h.key("right")
	h.key("left")
	h.key("enter")
	if h.m.questions.Len() != 1 {
		t.Fatal("an arrow then enter answered the question")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
	// Standing still on "allow once", Enter confirms it.
	h.waitFor("the highlight to settle", func(m *Model) bool { return !m.questions.Moving() })
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("enter on a settled allow once did not approve: %v", err)
	}
}

// TestTabThenEnterDoesNotApproveAnMCPServer: the same gate guards every
// question; a project's MCP server is not approved by Tab, Enter.
func TestTabThenEnterDoesNotApproveAnMCPServer(t *testing.T) {
	st := approval.Open(t.TempDir())
	spec := config.MCPServer{Command: "/nonexistent/server", Project: "/repo/.agent/config.json"}
	servers := startProjectServers(t, st, map[string]config.MCPServer{"p": spec})
	h := newHarness(t, nil, withServers(servers, st))
	h.waitScreen("approve and start")
	h.waitFor("the question to take its keys", func(m *Model) bool { return m.questions.Armed() })
	h.key("tab")
	h.key("enter")
	if h.m.mcpAsking.shown == nil || h.m.questions.Len() != 1 {
		t.Fatal("tab then enter answered the MCP question")
	}
	if mcp.ApprovedIn(st)("p", spec) {
		t.Fatal("tab then enter approved the project's MCP server")
	}
}
