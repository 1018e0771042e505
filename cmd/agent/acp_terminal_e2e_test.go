package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// termClient is an editor that offers terminals: each runs its command
// as a real child process.
type termClient struct {
	*acpClient
	tmu      sync.Mutex
	terms    map[string]*clientTerm
	created  []sdk.CreateTerminalRequest
	killed   []string
	released []string
	started  chan string // each terminal's id once its command runs
	// slow, when set, is how late this editor answers terminal/create
	// (after its command started) and terminal/release: an editor slower
	// than the agent's grace for a cancelled tool.
	slow time.Duration
}

type clientTerm struct {
	cmd  *exec.Cmd
	out  bytes.Buffer // written by the command (through a locked writer)
	mu   *sync.Mutex
	done chan struct{}
	code int
}

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func newTermClient() *termClient {
	return &termClient{acpClient: newACPClient(), terms: map[string]*clientTerm{}, started: make(chan string, 8)}
}

func (c *termClient) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = os.Environ()
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	term := &clientTerm{cmd: cmd, mu: &sync.Mutex{}, done: make(chan struct{})}
	cmd.Stdout = lockedBuf{term.mu, &term.out}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() {
		_ = cmd.Wait()
		term.code = cmd.ProcessState.ExitCode()
		close(term.done)
	}()
	c.tmu.Lock()
	id := "term-" + string(rune('a'+len(c.created)))
	c.created = append(c.created, p)
	c.terms[id] = term
	slow := c.slow
	c.tmu.Unlock()
	c.started <- id
	time.Sleep(slow) // a slow editor, not a synchronisation
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *termClient) term(id string) *clientTerm {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	return c.terms[id]
}

func (c *termClient) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t := c.term(p.TerminalId)
	select {
	case <-t.done:
		return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(t.code)}, nil
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (c *termClient) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t := c.term(p.TerminalId)
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.TerminalOutputResponse{Output: t.out.String()}, nil
}

func (c *termClient) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	c.tmu.Lock()
	c.killed = append(c.killed, p.TerminalId)
	c.tmu.Unlock()
	_ = c.term(p.TerminalId).cmd.Process.Kill()
	return sdk.KillTerminalResponse{}, nil
}

func (c *termClient) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t := c.term(p.TerminalId)
	_ = t.cmd.Process.Kill()
	<-t.done
	c.tmu.Lock()
	slow := c.slow
	c.tmu.Unlock()
	time.Sleep(slow)
	c.tmu.Lock()
	c.released = append(c.released, p.TerminalId)
	c.tmu.Unlock()
	return sdk.ReleaseTerminalResponse{}, nil
}

// TestE2EACPTerminal: with a client that offers terminals, bash runs in
// the editor's terminal (terminal/create → wait_for_exit → output →
// release), the tool call carries the terminal, the model reads the
// output as bash's (exit code, no API key); background bash stays the
// agent's; a cancel kills the terminal's command and releases it.
func TestE2EACPTerminal(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_t", "bash", `{"command":"echo from-the-terminal; echo key=$OPENAI_API_KEY; exit 3"}`),
		pt.ToolCall("call_bg", "bash", `{"command":"echo in-the-background","background":true}`),
		pt.Text("Ran."),
		pt.ToolCall("call_s", "bash", `{"command":"sleep 30"}`),
		pt.Text("never"),
	)
	c := newTermClient()
	p := e.startACPWith(c, c.acpClient)
	if _, err := p.conn.Initialize(ctxT(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Terminal: true}}); err != nil {
		t.Fatal(err)
	}
	id := p.newSession(t, e.work)
	if resp := p.prompt(t, id, "run it"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	c.tmu.Lock()
	created, released := append([]sdk.CreateTerminalRequest(nil), c.created...), append([]string(nil), c.released...)
	c.tmu.Unlock()
	if len(created) != 1 || created[0].Command != "bash" || len(created[0].Args) != 2 || !strings.Contains(created[0].Args[1], "from-the-terminal") ||
		created[0].Cwd == nil || *created[0].Cwd != e.work {
		t.Fatalf("terminals created (the background bash must not be one): %+v; stderr %s", created, p.stderr.String())
	}
	if len(released) != 1 || released[0] != "term-a" {
		t.Errorf("released %v", released)
	}
	// The tool call shows the terminal, to its end.
	var callID string
	for cid, us := range toolUpdates(c.snapshot()) {
		for _, u := range us {
			if content, ok := u["content"].([]any); ok && len(content) > 0 {
				if m := content[0].(map[string]any); m["type"] == "terminal" && m["terminalId"] == "term-a" {
					callID = cid
				}
			}
		}
	}
	us := toolUpdates(c.snapshot())[callID]
	if callID == "" || lastField(us, "status") != "failed" {
		t.Fatalf("no tool call carries the terminal, or it did not fail (exit 3): %s", dumpUpdates(c.snapshot()))
	}
	if content, _ := lastField(us, "content").([]any); len(content) != 1 || content[0].(map[string]any)["type"] != "terminal" {
		t.Errorf("final content %v", content)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, "from-the-terminal") || !strings.Contains(body, "[exit code 3]") || strings.Contains(body, testKey) {
		t.Errorf("the model's view of the terminal's output: %s", body)
	}
	if !strings.Contains(string(reqs[2].Body), "in-the-background") && !strings.Contains(string(reqs[2].Body), "background") {
		t.Errorf("the background bash: %s", reqs[2].Body)
	}

	// A cancel kills the command in the terminal and releases it, before
	// the prompt answers: even when the cancel reaches the agent while
	// terminal/create is answered, and when the editor answers slower
	// than the agent's grace for a cancelled tool.
	c.tmu.Lock()
	c.slow = 400 * time.Millisecond
	c.tmu.Unlock()
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, _ := p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("sleep")}})
		done <- resp
	}()
	<-c.started // term-a
	tid := <-c.started
	if err := p.conn.Cancel(ctxT(t), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if resp := <-done; resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	c.tmu.Lock()
	killed, released := append([]string(nil), c.killed...), append([]string(nil), c.released...)
	c.tmu.Unlock()
	if len(killed) != 1 || killed[0] != tid || len(released) != 2 || released[1] != tid {
		t.Errorf("after cancel: killed %v, released %v", killed, released)
	}
	select {
	case <-c.term(tid).done:
	default:
		t.Errorf("the terminal's command still runs")
	}
	p.exit(t)
}
