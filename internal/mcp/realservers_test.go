package mcp

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
)

// The roots advertised are the session's directory (server-filesystem
// without a directory argument refuses every path otherwise).
func TestRootsAreTheSessionDirectory(t *testing.T) {
	dir := t.TempDir()
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, map[string]string{mcptest.EnvRoots: "1"})}, Options{Dir: dir})
	ready(t, s)
	res := call(t, s, "t__roots", nil)
	if res.IsError || strings.TrimSpace(res.Output) != "file://"+filepath.ToSlash(dir) {
		t.Fatalf("roots %+v, want file://%s", res, dir)
	}
}

// A line on stdout that is not JSON is skipped and kept for the status
// (bounded), not the end of the connection.
func TestNonJSONStdoutLineIsSkipped(t *testing.T) {
	junk := "Secure MCP Filesystem Server running on stdio " + strings.Repeat("x", 100<<10)
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, map[string]string{mcptest.EnvStdoutJunk: junk})}, Options{})
	ready(t, s)
	st := statusOf(s, "t")
	if st.State != StateConnected {
		t.Fatalf("a banner on stdout failed the server: %+v", st)
	}
	if res := call(t, s, "t__echo", map[string]any{"text": "still here"}); res.IsError || res.Output != "still here" {
		t.Fatalf("echo after the banner: %+v", res)
	}
	if !strings.Contains(st.Stderr, "stdout (not MCP, skipped): Secure MCP Filesystem Server") {
		t.Errorf("the skipped line is not kept for the status: %q", st.Stderr)
	}
	if len(st.Stderr) > 4<<10 {
		t.Errorf("the skipped line is kept whole (%d bytes)", len(st.Stderr))
	}
}

// A restart that fails reports its own process's stderr, not the one of
// the process that crashed before it.
func TestFailedRestartQuotesItsOwnStderr(t *testing.T) {
	once := filepath.Join(t.TempDir(), "started")
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, map[string]string{mcptest.EnvOnce: once})}, Options{MaxRestarts: 2})
	ready(t, s)
	if res := call(t, s, "t__crash", nil); !res.IsError || !strings.Contains(res.Output, "crashing on purpose") {
		t.Fatalf("crash: %+v", res)
	}
	res := call(t, s, "t__echo", map[string]any{"text": "x"})
	if !res.IsError || !strings.Contains(res.Output, "started before, refusing") {
		t.Fatalf("the failed restart's error does not quote its stderr: %+v", res)
	}
	if strings.Contains(res.Output, "crashing on purpose") {
		t.Errorf("the failed restart's error quotes the previous process: %s", res.Output)
	}
}

// A tool callable only as an MCP task (execution.taskSupport
// "required") is not offered: calling it plainly fails with -32601. One
// that may run as a task is.
func TestTaskRequiredToolIsNotOffered(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, map[string]string{mcptest.EnvTaskTools: "1"})}, Options{})
	ready(t, s)
	got := names(s.Tools())
	if slices.Contains(got, "t__long_job") {
		t.Errorf("a task-only tool is offered: %v", got)
	}
	if !slices.Contains(got, "t__quick_job") || !slices.Contains(got, "t__echo") {
		t.Errorf("tools %v lack quick_job or echo", got)
	}
}

// The filter itself: protocol lines pass whole, in order; a line that
// only opens like JSON, blank lines and long banners are skipped and
// noted in a bounded way.
func TestStdoutFilterPassesOnlyJSONLines(t *testing.T) {
	in := "banner line\n{\"jsonrpc\":\"2.0\",\"id\":1}\n\n{progress: 50%}\n" + strings.Repeat("y", 300<<10) + "\n[{\"jsonrpc\":\"2.0\",\"id\":2}]\n{\"jsonrpc\":\"2.0\",\"id\":3}"
	var log strings.Builder
	out, err := io.ReadAll(newStdoutFilter(strings.NewReader(in), &log, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"jsonrpc\":\"2.0\",\"id\":1}\n[{\"jsonrpc\":\"2.0\",\"id\":2}]\n{\"jsonrpc\":\"2.0\",\"id\":3}"
	if string(out) != want {
		t.Errorf("passed %q\nwant %q", out, want)
	}
	if n := strings.Count(log.String(), "stdout (not MCP, skipped)"); n != 3 {
		t.Errorf("%d lines noted, want 3:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "{progress: 50%}") || log.Len() > 1<<10 {
		t.Errorf("log %d bytes:\n%.500s", log.Len(), log.String())
	}
}

// The same over streamable HTTP.
func TestTaskRequiredToolIsNotOfferedOverHTTP(t *testing.T) {
	srv := mcptest.HTTPTasks(t)
	s := start(t, map[string]config.MCPServer{"h": {URL: srv.URL}}, Options{})
	ready(t, s)
	got := names(s.Tools())
	if slices.Contains(got, "h__long_job") || !slices.Contains(got, "h__quick_job") {
		t.Errorf("tools %v: want quick_job and not long_job", got)
	}
}
