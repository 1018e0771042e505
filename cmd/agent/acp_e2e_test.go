package main

// End-to-end tests of `agent acp`: the built binary driven as a real
// subprocess by the ACP SDK's own client side, against the scripted
// provider.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// acpClient is the editor's side: it records the updates and answers
// permission requests and file reads and writes.
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	perms   []sdk.RequestPermissionRequest
	changed chan struct{} // closed and replaced on each update
	// answer picks the permission option; nil allows once.
	answer func(sdk.RequestPermissionRequest) sdk.PermissionOptionId
	// buffers are the editor's open files (fs/read_text_file), and
	// written what fs/write_text_file was sent.
	buffers map[string]string
	written map[string]string
}

func newACPClient() *acpClient {
	return &acpClient{changed: make(chan struct{}), buffers: map[string]string{}, written: map[string]string{}}
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

func (c *acpClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := c.answer
	c.mu.Unlock()
	id := sdk.PermissionOptionId("allow_once")
	if answer != nil {
		id = answer(p)
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
}

func (c *acpClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: s}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *acpClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.written[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// snapshot returns the updates so far.
func (c *acpClient) snapshot() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

// waitFor waits until ok holds for the updates so far.
func (c *acpClient) waitFor(t *testing.T, what string, ok func([]sdk.SessionNotification) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		ups, ch := append([]sdk.SessionNotification(nil), c.updates...), c.changed
		c.mu.Unlock()
		if ok(ups) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; updates: %s", what, dumpUpdates(ups))
		}
	}
}

func dumpUpdates(ups []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range ups {
		j, _ := json.Marshal(u.Update)
		b.WriteString(string(j) + "\n")
	}
	return b.String()
}

// agentText is the agent's message chunks joined.
func agentText(ups []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range ups {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// acpProc is a running `agent acp`.
type acpProc struct {
	conn   *sdk.ClientSideConnection
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *bytes.Buffer
	client *acpClient
}

func (e *env) startACP(c *acpClient) *acpProc { return e.startACPWith(c, c) }

// startACPWith starts agent acp whose requests handler answers; c records.
func (e *env) startACPWith(handler sdk.Client, c *acpClient) *acpProc {
	e.t.Helper()
	cmd := exec.Command(agentBin, "acp")
	cmd.Dir = e.work
	cmd.Env = e.vars
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	p := &acpProc{conn: sdk.NewClientSideConnection(handler, stdin, stdout), cmd: cmd, stdin: stdin, stderr: &errb, client: c}
	e.t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// exit closes stdin and waits for the process: it must exit 0.
func (p *acpProc) exit(t *testing.T) {
	t.Helper()
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("agent acp exited: %v; stderr: %s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("agent acp did not exit after stdin closed")
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (p *acpProc) initialize(t *testing.T, fs sdk.FileSystemCapabilities) sdk.InitializeResponse {
	t.Helper()
	resp, err := p.conn.Initialize(ctxT(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: fs}})
	if err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, p.stderr.String())
	}
	if resp.AgentInfo == nil || resp.AgentInfo.Version == "" {
		t.Errorf("initialize names no version of the agent: %+v", resp.AgentInfo)
	}
	return resp
}

func (p *acpProc) newSession(t *testing.T, dir string, servers ...sdk.McpServer) sdk.SessionId {
	t.Helper()
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	resp, err := p.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: dir, McpServers: servers})
	if err != nil {
		t.Fatalf("session/new: %v; stderr: %s", err, p.stderr.String())
	}
	return resp.SessionId
}

func (p *acpProc) prompt(t *testing.T, id sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	resp, err := p.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("session/prompt: %v; stderr: %s", err, p.stderr.String())
	}
	return resp
}

// toolUpdates are the tool call and tool call update notifications of id
// (the ACP tool call id), as JSON objects.
func toolUpdates(ups []sdk.SessionNotification) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, u := range ups {
		if u.Update.ToolCall == nil && u.Update.ToolCallUpdate == nil {
			continue
		}
		var m map[string]any
		j, _ := json.Marshal(u.Update)
		_ = json.Unmarshal(j, &m)
		id, _ := m["toolCallId"].(string)
		out[id] = append(out[id], m)
	}
	return out
}

// lastField is the last value of field among a call's updates.
func lastField(us []map[string]any, field string) any {
	var v any
	for _, u := range us {
		if x, ok := u[field]; ok {
			v = x
		}
	}
	return v
}

// TestE2EACPPromptPermissions: initialize is honest; a new session's
// prompt streams the answer; a write that asks is asked in the editor,
// with its diff, and runs when granted (the tool call goes pending →
// in_progress → completed with the diff) and does not when rejected.
func TestE2EACPPromptPermissions(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_w1", "write", `{"path":"granted.txt","content":"hello\n"}`),
		pt.Text("Wrote it."),
		pt.ToolCall("call_w2", "write", `{"path":"denied.txt","content":"no\n"}`),
		pt.Text("Understood."),
	)
	c := newACPClient()
	p := e.startACP(c)
	init := p.initialize(t, sdk.FileSystemCapabilities{})
	if init.ProtocolVersion != sdk.ProtocolVersionNumber || !init.AgentCapabilities.LoadSession ||
		!init.AgentCapabilities.PromptCapabilities.Image || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext ||
		!init.AgentCapabilities.McpCapabilities.Http || init.AgentCapabilities.McpCapabilities.Sse || len(init.AuthMethods) != 0 {
		t.Errorf("initialize: %+v", init)
	}
	id := p.newSession(t, e.work)
	c.waitFor(t, "available commands", func(ups []sdk.SessionNotification) bool {
		for _, u := range ups {
			if a := u.Update.AvailableCommandsUpdate; a != nil && len(a.AvailableCommands) >= 2 && a.AvailableCommands[0].Name == "compact" {
				return true
			}
		}
		return false
	})

	resp := p.prompt(t, id, "write granted.txt")
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "granted.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("granted.txt: %q %v", b, err)
	}
	ups := c.snapshot()
	if got := agentText(ups); got != "Wrote it." {
		t.Errorf("agent text %q", got)
	}
	c.mu.Lock()
	perms := append([]sdk.RequestPermissionRequest(nil), c.perms...)
	c.mu.Unlock()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests", len(perms))
	}
	pr := perms[0]
	if len(pr.Options) != 3 || pr.Options[0].Kind != sdk.PermissionOptionKindAllowOnce || pr.Options[1].Kind != sdk.PermissionOptionKindAllowAlways || pr.Options[2].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("options %+v", pr.Options)
	}
	if len(pr.ToolCall.Content) == 0 || pr.ToolCall.Content[0].Diff == nil || pr.ToolCall.Content[0].Diff.NewText != "hello\n" ||
		pr.ToolCall.Content[0].Diff.Path != filepath.Join(e.work, "granted.txt") {
		t.Errorf("the permission request shows no diff: %+v", pr.ToolCall)
	}
	calls := toolUpdates(ups)
	us := calls[string(pr.ToolCall.ToolCallId)]
	if len(us) == 0 || us[0]["sessionUpdate"] != "tool_call" || us[0]["kind"] != "edit" {
		t.Fatalf("tool call %s: %v (all: %v)", pr.ToolCall.ToolCallId, us, calls)
	}
	var statuses []string
	for _, u := range us {
		if s, ok := u["status"].(string); ok {
			statuses = append(statuses, s)
		}
	}
	if strings.Join(statuses, ">") != "pending>in_progress>completed" {
		t.Errorf("statuses %v", statuses)
	}
	if locs, _ := lastField(us, "locations").([]any); len(locs) != 1 {
		t.Errorf("locations %v", lastField(us, "locations"))
	}
	content, _ := lastField(us, "content").([]any)
	if len(content) == 0 || content[0].(map[string]any)["type"] != "diff" {
		t.Errorf("final content %v", content)
	}
	var usage bool
	for _, u := range ups {
		usage = usage || u.Update.UsageUpdate != nil && u.Update.UsageUpdate.Size > 0
	}
	if !usage {
		t.Errorf("no usage_update")
	}

	// Rejected: nothing written, the call failed, the turn goes on.
	c.mu.Lock()
	c.answer = func(sdk.RequestPermissionRequest) sdk.PermissionOptionId { return "reject" }
	c.mu.Unlock()
	before := len(c.snapshot())
	resp = p.prompt(t, id, "write denied.txt")
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if _, err := os.Stat(filepath.Join(e.work, "denied.txt")); !os.IsNotExist(err) {
		t.Errorf("denied.txt written: %v", err)
	}
	var failed bool
	for _, us := range toolUpdates(c.snapshot()[before:]) {
		failed = failed || lastField(us, "status") == "failed"
	}
	if !failed {
		t.Errorf("the rejected call is not failed: %s", dumpUpdates(c.snapshot()[before:]))
	}
	reqs := e.srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "permission denied") {
		t.Errorf("the model was not told of the denial")
	}
	p.exit(t)
}

// TestE2EACPCancelAndLoad: session/cancel mid-stream answers the prompt
// with stopReason cancelled and keeps what was streamed; a new process
// loads the session and replays it (user, agent text, the tool call with
// its final status); closing stdin exits 0.
func TestE2EACPCancelAndLoad(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	e := newEnv(t,
		pt.ToolCall("call_r", "read", `{"path":"notes.txt"}`),
		pt.Text("The notes say hi."),
		pt.Reply(pt.TextChunk("Partial answer"), pt.Block(hold), pt.TextChunk(" never sent")),
	)
	if err := os.WriteFile(filepath.Join(e.work, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newACPClient()
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{})
	id := p.newSession(t, e.work)
	if resp := p.prompt(t, id, "read the notes"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}

	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		r, err := p.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("go on")}})
		got <- answer{r, err}
	}()
	c.waitFor(t, "the partial answer", func(ups []sdk.SessionNotification) bool {
		return strings.Contains(agentText(ups), "Partial answer")
	})
	// A second prompt while one runs is refused, and the first goes on.
	if _, err := p.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("again")}}); err == nil ||
		!strings.Contains(err.Error(), "already running") {
		t.Errorf("second prompt: %v", err)
	}
	if err := p.conn.Cancel(ctxT(t), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a.err != nil || a.resp.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v %v", a.resp, a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled prompt did not answer")
	}
	p.exit(t)

	// Load in a new process: the conversation comes back as updates.
	c2 := newACPClient()
	p2 := e.startACP(c2)
	p2.initialize(t, sdk.FileSystemCapabilities{})
	if _, err := p2.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: id, Cwd: e.work, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v; stderr %s", err, p2.stderr.String())
	}
	ups := c2.snapshot()
	var user []string
	for _, u := range ups {
		if m := u.Update.UserMessageChunk; m != nil && m.Content.Text != nil {
			user = append(user, m.Content.Text.Text)
		}
	}
	if len(user) != 2 || user[0] != "read the notes" || user[1] != "go on" {
		t.Errorf("replayed user messages %q", user)
	}
	if text := agentText(ups); !strings.Contains(text, "The notes say hi.") || !strings.Contains(text, "Partial answer") || strings.Contains(text, "never sent") {
		t.Errorf("replayed agent text %q", text)
	}
	var read bool
	for _, us := range toolUpdates(ups) {
		read = read || us[0]["kind"] == "read" && lastField(us, "status") == "completed"
	}
	if !read {
		t.Errorf("the read call is not replayed as completed: %s", dumpUpdates(ups))
	}
	// Unknown sessions are invalid params, per JSON-RPC.
	_, err := p2.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: "no-such-session", Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}})
	var re *sdk.RequestError
	if err == nil || !asRequestError(err, &re) || re.Code != -32602 {
		t.Errorf("prompt of an unknown session: %v", err)
	}
	p2.exit(t)
}

func asRequestError(err error, re **sdk.RequestError) bool {
	r, ok := err.(*sdk.RequestError)
	if ok {
		*re = r
	}
	return ok
}

// TestE2EACPClientMCPServer: an MCP server the client passes joins the
// session under the client's name; its tool runs once allowed in the
// editor.
func TestE2EACPClientMCPServer(t *testing.T) {
	e := newEnv(t,
		pt.ToolCalls(pt.Call{ID: "call_mcp", Name: "ed__echo", Args: `{"text":"from the editor's server"}`}),
		pt.Text("Done."),
	)
	srv := mcptest.Stdio(t, nil)
	var env []sdk.EnvVariable
	for k, v := range srv.Env {
		env = append(env, sdk.EnvVariable{Name: k, Value: v})
	}
	c := newACPClient()
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{})
	id := p.newSession(t, e.work, sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "ed", Command: srv.Command, Args: []string{}, Env: env}})
	if resp := p.prompt(t, id, "use the editor's server"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"ed__echo"`) {
		t.Fatalf("the client's server's tools were not offered")
	}
	if !strings.Contains(string(reqs[1].Body), "from the editor's server") {
		t.Errorf("the model was not sent the server's result")
	}
	var done bool
	for _, us := range toolUpdates(c.snapshot()) {
		done = done || lastField(us, "status") == "completed"
	}
	if !done {
		t.Errorf("no completed tool call: %s", dumpUpdates(c.snapshot()))
	}
	p.exit(t)
}

// TestE2EACPBadInput: malformed JSON and unknown methods get JSON-RPC
// errors with the right codes, stdout carries only protocol lines, and
// the process exits 0 when stdin closes.
func TestE2EACPBadInput(t *testing.T) {
	e := newEnv(t)
	cmd := exec.Command(agentBin, "acp")
	cmd.Dir = e.work
	cmd.Env = e.vars
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
this is not json
{"jsonrpc":"2.0","id":2,"method":"no/such_method","params":{}}
{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"x"}]}}
{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}
{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"nope","modeId":"plan"}}
`)
	codes := map[float64]float64{}
	var parseError bool
	sc := bufio.NewScanner(stdout)
	for len(codes) < 6 && sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		id, _ := m["id"].(float64)
		if e, ok := m["error"].(map[string]any); ok {
			code, _ := e["code"].(float64)
			if code == -32700 {
				parseError = true
				codes[-1] = code
				continue
			}
			codes[id] = code
		} else {
			codes[id] = 0
		}
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; stderr %s", err, errb.String())
	}
	if !parseError {
		t.Errorf("no parse error answered: %v", codes)
	}
	if codes[1] != 0 || codes[2] != -32601 || codes[3] != -32602 || codes[4] != -32602 || codes[5] != -32602 {
		t.Errorf("error codes %v", codes)
	}
}

// TestE2EACPClientFiles: with the client's fs capabilities, read sees the
// editor's unsaved buffer, and an edit applies to it, lands on disk and
// is sent to the editor.
func TestE2EACPClientFiles(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_r", "read", `{"path":"notes.txt"}`),
		pt.ToolCall("call_e", "edit", `{"path":"notes.txt","old_string":"unsaved","new_string":"edited"}`),
		pt.ToolCall("call_c", "edit", `{"path":"made/new.txt","old_string":"","new_string":"created\n"}`),
		pt.Text("Done."),
	)
	path := filepath.Join(e.work, "notes.txt")
	if err := os.WriteFile(path, []byte("disk-only text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newACPClient()
	c.buffers[path] = "unsaved buffer\n"
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true})
	id := p.newSession(t, e.work)
	if resp := p.prompt(t, id, "edit the notes"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[1].Body), "unsaved buffer") || strings.Contains(string(reqs[1].Body), "disk-only text") {
		t.Fatalf("read did not see the editor's buffer: %d requests; %s; stderr %s", len(reqs), reqs[len(reqs)-1].Body, p.stderr.String())
	}
	if b, _ := os.ReadFile(path); string(b) != "edited buffer\n" {
		t.Errorf("on disk: %q", b)
	}
	created := filepath.Join(e.work, "made", "new.txt")
	c.mu.Lock()
	sent, sentNew, perms := c.written[path], c.written[created], c.perms
	c.mu.Unlock()
	if sent != "edited buffer\n" {
		t.Errorf("sent to the editor: %q", sent)
	}
	if sentNew != "created\n" {
		t.Errorf("the created file was not sent to the editor: %q (written: %v)", sentNew, c.written)
	}
	// The diff asked about and shown is the editor's buffer's, which the
	// edit applied to, not the disk's.
	var diffs []*sdk.ToolCallContentDiff
	for _, q := range perms {
		for _, ct := range q.ToolCall.Content {
			if ct.Diff != nil && ct.Diff.Path == path {
				diffs = append(diffs, ct.Diff)
			}
		}
	}
	for _, u := range p.client.snapshot() {
		if tu := u.Update.ToolCallUpdate; tu != nil {
			for _, ct := range tu.Content {
				if ct.Diff != nil && ct.Diff.Path == path {
					diffs = append(diffs, ct.Diff)
				}
			}
		}
	}
	if len(diffs) < 2 {
		t.Fatalf("%d diffs of notes.txt (permission %d); updates %s", len(diffs), len(perms), dumpUpdates(p.client.snapshot()))
	}
	for _, d := range diffs {
		if d.OldText == nil || *d.OldText != "unsaved buffer\n" || d.NewText != "edited buffer\n" {
			old := "<nil>"
			if d.OldText != nil {
				old = *d.OldText
			}
			t.Errorf("diff %q → %q, want the buffer's \"unsaved buffer\" → \"edited buffer\"", old, d.NewText)
		}
	}
	p.exit(t)
}

// TestE2EACPStdinClosedMidTurn: the client going away mid-turn cancels
// the turn, stores what was streamed and exits 0.
func TestE2EACPStdinClosedMidTurn(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	e := newEnv(t, pt.Reply(pt.TextChunk("Streamed before the end"), pt.Block(hold)))
	c := newACPClient()
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{})
	id := p.newSession(t, e.work)
	go func() {
		_, _ = p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("talk")}})
	}()
	c.waitFor(t, "the first chunk", func(ups []sdk.SessionNotification) bool {
		return strings.Contains(agentText(ups), "Streamed")
	})
	p.exit(t)
	res := e.run("", "sessions", "show", string(id))
	if res.code != 0 || !strings.Contains(res.stdout, "Streamed before the end") {
		t.Errorf("the streamed text was not stored: %d %s %s", res.code, res.stdout, res.stderr)
	}
}

// TestE2EACPModes: session/set_mode plan refuses a write without asking;
// accept_edits runs it without asking; an unknown mode is invalid params.
func TestE2EACPModes(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_p", "write", `{"path":"plan.txt","content":"x"}`),
		pt.Text("Planned."),
		pt.ToolCall("call_a", "write", `{"path":"accepted.txt","content":"y"}`),
		pt.Text("Written."),
	)
	c := newACPClient()
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{})
	resp, err := p.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: e.work, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "default" || len(resp.Modes.AvailableModes) != 3 {
		t.Fatalf("modes %+v", resp.Modes)
	}
	id := resp.SessionId
	setMode := func(m string) error {
		_, err := p.conn.SetSessionMode(ctxT(t), sdk.SetSessionModeRequest{SessionId: id, ModeId: sdk.SessionModeId(m)})
		return err
	}
	if err := setMode("plan"); err != nil {
		t.Fatal(err)
	}
	p.prompt(t, id, "plan it")
	if err := setMode("accept_edits"); err != nil {
		t.Fatal(err)
	}
	p.prompt(t, id, "write it")
	if _, err := os.Stat(filepath.Join(e.work, "plan.txt")); !os.IsNotExist(err) {
		t.Errorf("plan mode wrote: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "accepted.txt")); err != nil || string(b) != "y" {
		t.Errorf("accept_edits: %q %v", b, err)
	}
	c.mu.Lock()
	asked := len(c.perms)
	c.mu.Unlock()
	if asked != 0 {
		t.Errorf("%d permission requests", asked)
	}
	var re *sdk.RequestError
	if err := setMode("yolo"); err == nil || !asRequestError(err, &re) || re.Code != -32602 {
		t.Errorf("unknown mode: %v", err)
	}
	p.exit(t)
}

// tsSDKVersion is the reference TypeScript client's package, pinned.
const tsSDKVersion = "@agentclientprotocol/sdk@2.4.0"

// tsSDK is a directory holding the reference TypeScript SDK: the one
// $AGENT_ACP_TS_SDK names, or one installed once into the user's cache.
// The test is skipped (with the reason) when node or npm is missing or the
// install fails (offline).
func tsSDK(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the reference TypeScript client needs node and npm")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the reference TypeScript ACP client cannot run")
	}
	if dir := os.Getenv("AGENT_ACP_TS_SDK"); dir != "" {
		return dir
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for the TypeScript SDK: %v", err)
	}
	dir := filepath.Join(cache, "agent-tests", "acp-ts-sdk-2.4.0")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err == nil {
		return dir
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the reference TypeScript ACP client cannot be installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, tsSDKVersion)
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("cannot install %s (offline?): %v\n%s", tsSDKVersion, err, out)
	}
	return dir
}

// TestE2EACPReferenceTSClient: a client that is not ours, the reference
// TypeScript SDK's, runs one prompt end to end: initialize, session/new,
// session/prompt with a write the client allows.
func TestE2EACPReferenceTSClient(t *testing.T) {
	sdkDir := tsSDK(t)
	e := newEnv(t,
		pt.ToolCall("call_w", "write", `{"path":"ts.txt","content":"from ts\n"}`),
		pt.Text("Written for TypeScript."),
	)
	script, err := filepath.Abs(filepath.Join("testdata", "acp", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, sdkDir, agentBin, e.work)
	cmd.Dir = e.work
	cmd.Env = e.vars
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\nstdout %s\nstderr %s", err, out.String(), errb.String())
	}
	var got struct {
		StopReason  string `json:"stopReason"`
		Text        string `json:"text"`
		ToolCalls   int    `json:"toolCalls"`
		Permissions int    `json:"permissions"`
		Exit        int    `json:"exit"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("client output %q: %v (stderr %s)", out.String(), err, errb.String())
	}
	if got.StopReason != "end_turn" || got.Text != "Written for TypeScript." || got.ToolCalls != 1 || got.Permissions != 1 || got.Exit != 0 {
		t.Errorf("reference client: %+v (stderr %s)", got, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "ts.txt")); err != nil || string(b) != "from ts\n" {
		t.Errorf("ts.txt: %q %v", b, err)
	}
}

// TestE2EACPSlashCommands: /compact, /context and the project's custom
// commands are offered; /context answers without a model request, and a
// custom command sends its expanded text.
func TestE2EACPSlashCommands(t *testing.T) {
	e := newEnv(t, pt.Text("Hello, world."))
	dir := filepath.Join(e.work, ".agent", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "greet.md"), []byte("---\ndescription: Greet someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS, warmly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newACPClient()
	p := e.startACP(c)
	p.initialize(t, sdk.FileSystemCapabilities{})
	id := p.newSession(t, e.work)
	c.waitFor(t, "the available commands", func(ups []sdk.SessionNotification) bool {
		for _, u := range ups {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				var names []string
				for _, c := range a.AvailableCommands {
					names = append(names, c.Name)
				}
				return strings.Join(names, ",") == "compact,context,greet"
			}
		}
		return false
	})
	if resp := p.prompt(t, id, "/context"); resp.StopReason != sdk.StopReasonEndTurn || !strings.Contains(agentText(c.snapshot()), "Context: ") {
		t.Fatalf("/context: %+v %q", resp, agentText(c.snapshot()))
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("/context made %d requests", n)
	}
	p.prompt(t, id, "/greet the team")
	reqs := e.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Say hello to the team, warmly.") {
		t.Errorf("the custom command was not expanded")
	}
	p.exit(t)
}
