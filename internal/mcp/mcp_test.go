package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/tools"
)

func TestMain(m *testing.M) {
	mcptest.Serve() // the stdio server, when this binary is started as one
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(childproc.SpawnerFunc))
}

// start starts servers and closes them when the test ends.
func start(t *testing.T, specs map[string]config.MCPServer, opt Options) *Servers {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	s := Start(context.Background(), specs, opt)
	t.Cleanup(func() { s.Close() })
	return s
}

func ready(t *testing.T, s *Servers) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatalf("servers not ready: %v", err)
	}
}

func toolEnv(t *testing.T) *tools.Env {
	return &tools.Env{Dir: t.TempDir(), OutputDir: filepath.Join(t.TempDir(), "outputs")}
}

// call runs a tool through the registry, as the loop does, with the
// server's tools allowed.
func call(t *testing.T, s *Servers, name string, args map[string]any) tools.Result {
	t.Helper()
	return callWith(t, s, tools.NewPermissions(map[string]tools.Mode{"t": tools.ModeAllow, "h": tools.ModeAllow}, nil, false), name, args)
}

func callWith(t *testing.T, s *Servers, perms *tools.Permissions, name string, args map[string]any) tools.Result {
	t.Helper()
	reg := tools.NewRegistry().With(s.Tools()...)
	res, err := reg.RunChecked(context.Background(), toolEnv(t), perms, tools.Call{ID: "c1", Name: name, Input: mcptest.Args(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func names(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func statusOf(s *Servers, name string) Status {
	for _, st := range s.Status() {
		if st.Name == name {
			return st
		}
	}
	return Status{}
}

func TestStdioServer(t *testing.T) {
	const key = "sk-test-secret-value-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("ALIAS_OF_KEY", key)
	t.Setenv("MCPTEST_HOME", "/home/someone")
	dir := t.TempDir()
	spec := mcptest.Stdio(t, map[string]string{"FROM_ENTRY": "at ${MCPTEST_HOME}", "LEAK": "${OPENAI_API_KEY}"})
	s := start(t, map[string]config.MCPServer{"t": spec}, Options{Dir: dir, Secrets: []string{key}})
	ready(t, s)

	want := []string{"t__big", "t__crash", "t__dotted_name", "t__echo", "t__fail", "t__getenv", "t__hang", "t__image", "t__pid", "t__pwd"}
	got := names(s.Tools())
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	st := statusOf(s, "t")
	if st.State != StateConnected || st.Kind != config.MCPStdio || len(st.Tools) != len(want) || st.Tokens <= int64(8*len(want)) {
		t.Fatalf("status %+v", st)
	}
	for _, tl := range s.Tools() {
		var schema map[string]any
		if err := json.Unmarshal(tl.Parameters(), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema %s", tl.Name(), tl.Parameters())
		}
		if tl.Description() == "" {
			t.Errorf("%s has no description", tl.Name())
		}
	}

	if res := call(t, s, "t__echo", map[string]any{"text": "hello"}); res.IsError || res.Output != "hello" || res.Title != "t: echo" {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, s, "t__pwd", nil); res.Output != dir {
		t.Errorf("pwd = %q, want the session dir %s", res.Output, dir)
	}
	for name, want := range map[string]string{"OPENAI_API_KEY": "(unset)", "ALIAS_OF_KEY": "(unset)", "LEAK": "", "FROM_ENTRY": "at /home/someone"} {
		if res := call(t, s, "t__getenv", map[string]any{"name": name}); res.Output != want {
			t.Errorf("the server's %s = %q, want %q", name, res.Output, want)
		}
	}
	if res := call(t, s, "t__image", nil); !strings.Contains(res.Output, "a picture:\n[image: t__image-1.png, image/png, ") ||
		len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, mcptest.PNG) {
		t.Errorf("image: %q, %d images", res.Output, len(res.Images))
	}
	if res := call(t, s, "t__fail", nil); !res.IsError || res.Output != "it went wrong" {
		t.Errorf("fail: %+v", res)
	}
	if res := call(t, s, "t__dotted_name", nil); res.Output != "dotted" {
		t.Errorf("dotted.name: %+v", res)
	}
	// Input the schema refuses never reaches the server.
	if res := call(t, s, "t__big", map[string]any{"kb": "lots"}); !res.IsError || !strings.Contains(res.Output, `"kb" must be a number`) {
		t.Errorf("invalid input: %+v", res)
	}
}

func TestLargeResultIsTruncatedAndSaved(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)}, Options{})
	ready(t, s)
	res := call(t, s, "t__big", map[string]any{"kb": 200})
	if res.IsError || !res.Truncated || len(res.Output) > 60*1024 || res.FullOutputPath == "" {
		t.Fatalf("truncated=%v len=%d path=%q error=%v", res.Truncated, len(res.Output), res.FullOutputPath, res.IsError)
	}
	full, err := os.ReadFile(res.FullOutputPath)
	if err != nil || len(full) < 200*1024 || !strings.Contains(string(full), "line 000000") {
		t.Fatalf("saved output: %d bytes, %v", len(full), err)
	}
	if !strings.Contains(res.Output, res.FullOutputPath) {
		t.Errorf("the model is not told where the full output is: %q", res.Output[len(res.Output)-300:])
	}
}

func TestPermissionAskedByDefault(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)}, Options{})
	ready(t, s)
	res := callWith(t, s, tools.NewPermissions(nil, nil, false), "t__pid", nil)
	if !res.IsError || res.Metadata["permission"] != "denied" || !strings.Contains(res.Output, `"t__pid": "allow"`) {
		t.Fatalf("headless call without --yes: %+v", res)
	}
	asker := &recordingAsker{reply: tools.AllowSession}
	perms := tools.NewPermissions(nil, asker, false)
	for range 2 {
		if res := callWith(t, s, perms, "t__pid", nil); res.IsError {
			t.Fatalf("allowed call: %+v", res)
		}
	}
	if len(asker.asked) != 1 || asker.asked[0].Tool != "t__pid" {
		t.Fatalf("asked %+v, want once for t__pid", asker.asked)
	}
	if res := callWith(t, s, tools.NewPermissions(map[string]tools.Mode{"t": tools.ModeAllow, "t__pid": tools.ModeDeny}, nil, false), "t__pid", nil); !res.IsError {
		t.Fatalf("t__pid deny did not win over t allow: %+v", res)
	}
}

type recordingAsker struct {
	reply tools.Reply
	asked []tools.Request
}

func (a *recordingAsker) Ask(_ context.Context, req tools.Request) (tools.Reply, error) {
	a.asked = append(a.asked, req)
	return a.reply, nil
}

func TestCrashIsAnErrorAndTheNextCallRestarts(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)}, Options{MaxRestarts: 1})
	ready(t, s)
	first := call(t, s, "t__pid", nil).Output

	began := time.Now()
	res := call(t, s, "t__crash", nil)
	if !res.IsError || !strings.Contains(res.Output, "exited") || !strings.Contains(res.Output, "crashing on purpose") ||
		!strings.Contains(res.Output, "restarted by the next call") {
		t.Fatalf("crash: %+v", res)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the crash took %v to report", d)
	}
	if st := statusOf(s, "t"); st.State != StateCrashed || !strings.Contains(st.Reason, "exit status 3") {
		t.Errorf("status after the crash: %+v", st)
	}
	if !slices.Contains(names(s.Tools()), "t__pid") {
		t.Fatal("a crashed server's tools are withdrawn before the restart")
	}

	second := call(t, s, "t__pid", nil)
	if second.IsError || second.Output == first {
		t.Fatalf("after the crash: %+v (first pid %s)", second, first)
	}
	if st := statusOf(s, "t"); st.State != StateConnected || st.Restarts != 1 {
		t.Errorf("status after the restart: %+v", st)
	}

	// The restarts are bounded: the second crash is final.
	if res := call(t, s, "t__crash", nil); !res.IsError || !strings.Contains(res.Output, "will not be restarted") {
		t.Fatalf("second crash: %+v", res)
	}
	waitFor(t, func() bool { return statusOf(s, "t").State == StateFailed })
	if len(s.Tools()) != 0 {
		t.Errorf("a failed server still offers %v", names(s.Tools()))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHangingCallTimesOutAndCancels(t *testing.T) {
	spec := mcptest.Stdio(t, nil)
	spec.TimeoutS = 0.5
	s := start(t, map[string]config.MCPServer{"t": spec}, Options{})
	ready(t, s)
	began := time.Now()
	res := call(t, s, "t__hang", nil)
	took := time.Since(began)
	if !res.IsError || !strings.Contains(res.Output, "did not answer within 500ms") {
		t.Fatalf("hang: %+v", res)
	}
	if took < 500*time.Millisecond || took > 3*time.Second {
		t.Errorf("the timeout took %v, want about 500ms", took)
	}
	// The server still serves.
	if res := call(t, s, "t__echo", map[string]any{"text": "still here"}); res.Output != "still here" {
		t.Fatalf("after the timeout: %+v", res)
	}

	// Cancelling the call's context ends it at once.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result, 1)
	reg := tools.NewRegistry().With(s.Tools()...)
	go func() {
		spec.TimeoutS = 60
		done <- reg.Run(ctx, toolEnv(t), tools.Call{ID: "c", Name: "t__hang", Input: json.RawMessage(`{}`)})
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case res := <-done:
		if !res.IsError {
			t.Fatalf("cancelled call: %+v", res)
		}
	case <-time.After(time.Second):
		t.Fatal("a cancelled call did not return within 1 s")
	}
}

func TestHTTPServer(t *testing.T) {
	srv := mcptest.HTTP(t, "Authorization: Bearer tok-123")
	env := map[string]string{"MCP_TOKEN": "tok-123"}
	s := start(t, map[string]config.MCPServer{
		"h":   {URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${MCP_TOKEN}"}},
		"bad": {URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer wrong"}},
	}, Options{Getenv: func(k string) string { return env[k] }})
	ready(t, s)
	if st := statusOf(s, "h"); st.State != StateConnected || st.Kind != config.MCPHTTP || len(st.Tools) != len(mcptest.ToolNames) {
		t.Fatalf("h: %+v", st)
	}
	if st := statusOf(s, "bad"); st.State != StateFailed || !strings.Contains(st.Reason, "401") && !strings.Contains(strings.ToLower(st.Reason), "unauthorized") {
		t.Errorf("bad: %+v", st)
	}
	if res := call(t, s, "h__echo", map[string]any{"text": "over http"}); res.IsError || res.Output != "over http" {
		t.Fatalf("echo: %+v", res)
	}
	res := call(t, s, "h__big", map[string]any{"kb": 200})
	if !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("big over http: truncated=%v %q", res.Truncated, res.FullOutputPath)
	}
	if res := callWith(t, s, tools.NewPermissions(nil, nil, false), "h__echo", map[string]any{"text": "x"}); !res.IsError || res.Metadata["permission"] != "denied" {
		t.Fatalf("not asked: %+v", res)
	}
}

func TestSlowServerDoesNotDelayStart(t *testing.T) {
	began := time.Now()
	s := start(t, map[string]config.MCPServer{"t": mcptest.Stdio(t, map[string]string{mcptest.EnvStartDelayMS: "2000"})}, Options{})
	changed := s.Changes()
	if d := time.Since(began); d > 100*time.Millisecond {
		t.Fatalf("Start took %v", d)
	}
	if len(s.Tools()) != 0 || statusOf(s, "t").State != StateConnecting {
		t.Fatalf("before the server answered: %v %+v", names(s.Tools()), statusOf(s, "t"))
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no change reported")
	}
	if d := time.Since(began); d < 2*time.Second {
		t.Errorf("connected after %v, before the server's delay", d)
	}
	if !slices.Contains(names(s.Tools()), "t__echo") {
		t.Fatalf("tools once ready: %v", names(s.Tools()))
	}
}

func TestStartupTimeout(t *testing.T) {
	spec := mcptest.Stdio(t, map[string]string{mcptest.EnvStartDelayMS: "5000"})
	spec.StartupTimeoutS = 0.3
	began := time.Now()
	s := start(t, map[string]config.MCPServer{"t": spec, "missing": {Command: "/nonexistent/mcp-server"}}, Options{})
	ready(t, s)
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("failing took %v", d)
	}
	if st := statusOf(s, "t"); st.State != StateFailed || !strings.Contains(st.Reason, "no answer within 300ms") || !strings.Contains(st.Stderr, "") {
		t.Errorf("slow: %+v", st)
	}
	if st := statusOf(s, "missing"); st.State != StateFailed || !strings.Contains(st.Reason, "/nonexistent/mcp-server") {
		t.Errorf("missing: %+v", st)
	}
	if len(s.Tools()) != 0 {
		t.Errorf("failed servers offer %v", names(s.Tools()))
	}
}

func TestProjectServersWaitForApproval(t *testing.T) {
	spec := mcptest.Stdio(t, nil)
	spec.Project = "/repo/.agent/config.json"
	disabled := mcptest.Stdio(t, nil)
	disabled.Disabled = true
	var asked []string
	s := start(t, map[string]config.MCPServer{"p": spec, "off": disabled}, Options{Approved: func(name string, e config.MCPServer) bool {
		asked = append(asked, name)
		return false
	}})
	ready(t, s)
	if st := statusOf(s, "p"); st.State != StateNeedsApproval || !strings.Contains(st.Reason, "agent mcp approve p") || st.Project != spec.Project {
		t.Fatalf("p: %+v", st)
	}
	if st := statusOf(s, "off"); st.State != StateDisabled {
		t.Fatalf("off: %+v", st)
	}
	if !slices.Equal(asked, []string{"p"}) || len(s.Tools()) != 0 {
		t.Fatalf("asked %v; tools %v", asked, names(s.Tools()))
	}
	if !s.Allow("p") {
		t.Fatal("Allow found nothing to start")
	}
	ready(t, s)
	if !slices.Contains(names(s.Tools()), "p__echo") {
		t.Fatalf("after approval: %v", names(s.Tools()))
	}
}

func TestCloseKillsTheServers(t *testing.T) {
	s := Start(context.Background(), map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)}, Options{Dir: t.TempDir()})
	ready(t, s)
	pid, _ := strconv.Atoi(call(t, s, "t__pid", nil).Output)
	if pid == 0 {
		t.Fatal("no pid")
	}
	began := time.Now()
	s.Close()
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("server %d still runs after Close", pid)
	}
	if len(s.Tools()) != 0 {
		t.Error("tools offered after Close")
	}
	if res := (&tool{sv: s.servers[0], name: "t__pid", remote: "pid"}); res != nil {
		out, _ := res.Run(context.Background(), toolEnv(t), tools.Call{Name: "t__pid"})
		if !out.IsError {
			t.Errorf("a call after Close: %+v", out)
		}
	}
}

func TestToolNames(t *testing.T) {
	taken := map[string]bool{}
	long := strings.Repeat("very_long_tool_name_", 5)
	cases := []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"my server", "do.it/now", "my_server__do_it_now"},
		{"my.server", "do_it_now", "my_server__do_it_now_2"},
		{"s", long, toolName("s", long)},
	}
	for _, c := range cases {
		got := uniqueName(c.server, c.tool, taken)
		if got != c.want {
			t.Errorf("%s/%s = %q, want %q", c.server, c.tool, got, c.want)
		}
		if len(got) > 64 || sanitise(got) != got {
			t.Errorf("%q is not a valid tool name", got)
		}
	}
	if n := toolName("s", long); len(n) != 64 || n == toolName("s", long+"x") {
		t.Errorf("long names: %q", n)
	}
}

func TestNormaliseSchema(t *testing.T) {
	cases := map[string]struct {
		in   any
		want string
	}{
		"nil":           {nil, `{"properties":{},"type":"object"}`},
		"no type":       {map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}}, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		"$schema":       {map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}, `{"properties":{},"type":"object"}`},
		"not an object": {"string", `{"properties":{},"type":"object"}`},
	}
	for name, c := range cases {
		if got := string(normaliseSchema(c.in)); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}
