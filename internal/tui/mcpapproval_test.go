package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// startProjectServers starts servers as the chat does, approvals read from
// st, and closes them when the test ends.
func startProjectServers(t *testing.T, st *approval.Store, specs map[string]config.MCPServer) *mcp.Servers {
	t.Helper()
	s := mcp.Start(context.Background(), specs, mcp.Options{Dir: t.TempDir(), Approved: mcp.ApprovedIn(st)})
	t.Cleanup(func() { s.Close() })
	return s
}

func withServers(s *mcp.Servers, st *approval.Store) harnessOption {
	return func(o *Options) {
		o.MCP, o.Loop.Extra, o.Approvals = s, s, st
	}
}

func stateOf(s *mcp.Servers, name string) mcp.State {
	for _, st := range s.Status() {
		if st.Name == name {
			return st.State
		}
	}
	return ""
}

func requestTools(req pt.Request) []string {
	var names []string
	for _, t := range req.Chat.Tools {
		if t.Function != nil {
			names = append(names, t.Function.Name)
		}
	}
	return names
}

// TestProjectMCPServerIsApprovedInTheChat: a server a project file
// declares waits; the chat asks once idle, showing the project file and
// the URL with its header as written; approving records the
// approval as `agent mcp approve` does and starts the server, whose tools
// are in the next request.
func TestProjectMCPServerIsApprovedInTheChat(t *testing.T) {
	srv := mcptest.HTTP(t, "")
	data := t.TempDir()
	st := approval.Open(data)
	spec := config.MCPServer{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "s3cret-value"}, Project: "/repo/.agent/config.json"}
	servers := startProjectServers(t, st, map[string]config.MCPServer{"web": spec})
	h := newHarness(t, []pt.Step{pt.Text("hello")}, withServers(servers, st))

	h.waitScreen("tab answers here")
	s := h.screen()
	for _, want := range []string{"MCP server", "/repo/.agent/config.json declares the MCP server web", srv.URL, "header X-Api-Key: s3cret-value", "approve and start", "not now", "never for this project"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	if stateOf(servers, "web") != mcp.StateNeedsApproval {
		t.Fatalf("web started before the answer: %s", stateOf(servers, "web"))
	}

	h.key("alt+a")
	h.waitScreen("web approved")
	if h.m.questions.Len() != 0 {
		t.Fatalf("the question is still open:\n%s", h.screen())
	}
	if !mcp.ApprovedIn(approval.Open(data))("web", spec) {
		t.Fatal("the approval was not recorded")
	}
	if _, err := os.Stat(filepath.Join(data, approval.FileName)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := stateOf(servers, "web"); got != mcp.StateConnected {
		t.Fatalf("web after approval: %s", got)
	}
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "hello") })
	if tools := requestTools(h.srv.Requests()[0]); !slices.Contains(tools, "web__echo") {
		t.Errorf("the request offers %v, want web__echo", tools)
	}
}

// TestMCPQuestionShowsNoRawEscapes: what a project file says reaches the
// screen quoted, never as escape sequences; "not now" records nothing and
// starts nothing, and the chat does not ask again.
func TestMCPQuestionShowsNoRawEscapes(t *testing.T) {
	data := t.TempDir()
	st := approval.Open(data)
	marker := filepath.Join(t.TempDir(), "PWNED")
	spec := config.MCPServer{
		Command: "/bin/sh", Args: []string{"-c", "touch " + marker + "\x1b[2J"},
		Env:     map[string]string{"TOKEN": "secret-env-value\x1b]0;title\x07"},
		Project: "/repo\x1b[5m/.agent/config.json",
	}
	name := "ev\x1b]52;c;aGk=\x07il"
	servers := startProjectServers(t, st, map[string]config.MCPServer{name: spec})
	h := newHarness(t, []pt.Step{pt.Text("hello")}, withServers(servers, st))

	h.waitScreen("tab answers here")
	raw := h.m.View().Content
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x1b]52;", "\x1b[5m", "\a"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the screen holds the raw sequence %q", bad)
		}
	}
	s := h.screen()
	for _, want := range []string{`"/repo\x1b[5m/.agent/config.json"`, `"ev\x1b]52;c;aGk=\ail"`, `/bin/sh -c "touch ` + marker + `\x1b[2J"`, `env TOKEN="secret-env-value\x1b]0;title\a"`} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %s:\n%s", want, s)
		}
	}

	h.key("alt+n")
	h.waitScreen("stays off for now")
	if _, err := os.Stat(filepath.Join(data, approval.FileName)); err == nil {
		t.Error("not now recorded something")
	}
	if got := stateOf(servers, name); got != mcp.StateNeedsApproval {
		t.Errorf("the server after not now: %s", got)
	}
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "hello") })
	if h.m.questions.Len() != 0 || h.m.mcpAsking.shown != nil {
		t.Errorf("the chat asked again:\n%s", h.screen())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the server's command ran")
	}
}

// TestMCPNeverIsNotAskedAgain: "never for this project" records a decline
// of the entry; the next chat does not ask, and a changed entry is asked
// about again.
func TestMCPNeverIsNotAskedAgain(t *testing.T) {
	st := approval.Open(t.TempDir())
	spec := config.MCPServer{Command: "/nonexistent/server", Project: "/repo/.agent/config.json"}
	servers := startProjectServers(t, st, map[string]config.MCPServer{"p": spec})
	h := newHarness(t, nil, withServers(servers, st))
	h.waitScreen("tab answers here")
	h.key("alt+x")
	h.waitScreen("p stays off in this project")
	if !mcp.Declined(st, "p", spec) || mcp.ApprovedIn(st)("p", spec) {
		t.Fatal("the decline was not recorded, or recorded as an approval")
	}
	h.close()

	again := startProjectServers(t, st, map[string]config.MCPServer{"p": spec})
	h = newHarness(t, nil, withServers(again, st))
	h.waitFor("the scan", func(m *Model) bool { return m.mcpAsking.known })
	if h.m.questions.Len() != 0 || len(h.m.mcpAsking.queue) != 0 {
		t.Fatalf("a declined server was asked about:\n%s", h.screen())
	}

	changed := spec
	changed.Args = []string{"--new"}
	third := startProjectServers(t, st, map[string]config.MCPServer{"p": changed})
	h = newHarness(t, nil, withServers(third, st))
	h.waitScreen("/nonexistent/server --new")
}

// TestLoopQuestionGoesBeforeTheMCPQuestion: a message sent while the MCP
// question waits runs; its permission question is asked first, and the MCP
// question comes back after.
func TestLoopQuestionGoesBeforeTheMCPQuestion(t *testing.T) {
	st := approval.Open(t.TempDir())
	spec := config.MCPServer{Command: "/nonexistent/server", Project: "/repo/.agent/config.json"}
	servers := startProjectServers(t, st, map[string]config.MCPServer{"p": spec})
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"true"}`), pt.Text("done")}, withServers(servers, st))
	h.waitScreen("approve and start")
	h.typeText("go")
	h.key("enter")
	h.waitScreen("Permission")
	h.waitFor("the permission question to take keys", func(m *Model) bool { return m.questions.Armed() })
	h.key("alt+a")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "done") })
	h.waitScreen("approve and start")
	if mcp.ApprovedIn(st)("p", spec) {
		t.Fatal("alt+a for the permission approved the MCP server")
	}
	h.waitFor("the MCP question to take keys", func(m *Model) bool { return m.questions.Armed() })
	h.key("alt+n")
	h.waitScreen("stays off for now")
}

// TestMCPQuestionSurvivesANewConversation: /new drops the open questions;
// the MCP question is asked again.
func TestMCPQuestionSurvivesANewConversation(t *testing.T) {
	st := approval.Open(t.TempDir())
	spec := config.MCPServer{Command: "/nonexistent/server", Project: "/repo/.agent/config.json"}
	servers := startProjectServers(t, st, map[string]config.MCPServer{"p": spec})
	h := newHarness(t, []pt.Step{pt.Text("hello")}, withServers(servers, st))
	h.waitScreen("approve and start")
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "hello") })
	first := h.m.mcpAsking.shown
	h.typeText("/new")
	h.key("enter")
	h.waitFor("the question again", func(m *Model) bool {
		return m.mcpAsking.shown != nil && m.mcpAsking.shown != first && !strings.Contains(screenOf(m), "hello")
	})
	h.waitScreen("approve and start")
}

// TestMCPQuestionShowsWhatTheEntrySends: the question shows every env
// entry and header with its value as written and the variables they
// reference, saying which the user's config does not grant; a project
// entry whose env changes what a program loads is refused, never asked
// about.
func TestMCPQuestionShowsWhatTheEntrySends(t *testing.T) {
	st := approval.Open(t.TempDir())
	specs := map[string]config.MCPServer{
		"web": {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Client": "${SECRET_MARKER}"}, Project: "/repo/.agent/config.json"},
		"lib": {Command: "python3", Args: []string{"-m", "srv"}, Env: map[string]string{"PYTHONPATH": ".agent/lib"}, Project: "/repo/.agent/config.json"},
	}
	servers := startProjectServers(t, st, specs)
	h := newHarness(t, []pt.Step{pt.Text("hello")}, withServers(servers, st))

	h.waitScreen("tab answers here")
	s := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"declares the MCP server web", "header X-Client: ${SECRET_MARKER}", "references $SECRET_MARKER (not granted"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	h.key("alt+n")
	h.waitScreen("stays off for now")
	if strings.Contains(h.screen(), "declares the MCP server lib") || stateOf(servers, "lib") != mcp.StateRefused {
		t.Errorf("lib (PYTHONPATH) is %s, and asked about:\n%s", stateOf(servers, "lib"), h.screen())
	}
}
