package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/mcp/mcptest"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// agentBin is the binary built once for the tests that run it.
var agentBin string

func TestMain(m *testing.M) {
	mcptest.Serve() // this binary started as the MCP test server
	dir, err := os.MkdirTemp("", "agent-e2e-")
	if err != nil {
		panic(err)
	}
	agentBin = filepath.Join(dir, "agent")
	build := goBuild(agentBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build agent: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a hermetic environment for the binary: its own HOME, config and
// data directories, a working directory, and the scripted server.
type env struct {
	t    *testing.T
	srv  *pt.Server
	home string
	data string
	work string
	vars []string
}

const testKey = "sk-e2e-very-secret-key-0123456789"

func newEnv(t *testing.T, steps ...pt.Step) *env {
	t.Helper()
	e := &env{t: t, srv: pt.New(t, steps...), home: t.TempDir(), work: t.TempDir()}
	e.data = filepath.Join(e.home, "data")
	e.vars = []string{
		"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"), "AGENT_DATA_DIR=" + e.data,
		"OPENAI_API_KEY=" + testKey, "OPENAI_BASE_URL=" + e.srv.URL, "AGENT_MODEL=gpt-4.1",
		"GORACE=halt_on_error=1",
	}
	return e
}

type result struct {
	stdout, stderr string
	code           int
}

func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir = e.work
	cmd.Env = e.vars
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run agent %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

func (e *env) without(name string) {
	kept := e.vars[:0]
	for _, v := range e.vars {
		if !strings.HasPrefix(v, name+"=") {
			kept = append(kept, v)
		}
	}
	e.vars = kept
}

func TestE2ERunStreamsAndPersists(t *testing.T) {
	answer := "The answer is forty-two, as everyone knows."
	e := newEnv(t, pt.Text(answer))
	res := e.run("", "run", "--base-url", e.srv.URL, "--model", "m", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if strings.TrimSpace(res.stdout) != answer {
		t.Errorf("stdout = %q, want the whole answer", res.stdout)
	}
	ls := e.run("", "sessions", "--json")
	var rows []sessionRow
	if err := json.Unmarshal([]byte(ls.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("sessions --json: %v %q", err, ls.stdout)
	}
	if rows[0].Title != "hi" || rows[0].Messages != 2 || rows[0].Dir == "" {
		t.Errorf("session row = %+v", rows[0])
	}
	text := e.run("", "sessions")
	if !strings.Contains(text.stdout, rows[0].ID) {
		t.Errorf("sessions lists %q", text.stdout)
	}
	assertNoKey(t, e.home)
	assertPrivate(t, e.data)
}

func assertNoKey(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(testKey)) || bytes.Contains(data, []byte("very-secret")) {
			t.Errorf("the API key is in %s", path)
		}
		return nil
	})
}

func assertPrivate(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", fi.Mode().Perm())
	}
	db, err := os.Stat(filepath.Join(dir, "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	if db.Mode().Perm() != 0o600 {
		t.Errorf("agent.db mode %v, want 0600", db.Mode().Perm())
	}
}

func TestE2EJSONEvents(t *testing.T) {
	e := newEnv(t,
		pt.Reply(append([]pt.Chunk{pt.ReasoningChunk("Let me look.", "reasoning_content")},
			append(pt.ToolCallChunks(0, "call_1", "bash", `{"command":"echo tool-output"}`, 3),
				pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)...),
		pt.Text("All done: tool-output seen."),
	)
	res := e.run("", "run", "--yes", "--format", "json", "check")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var types []string
	var text, reasoning string
	var done map[string]any
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		typ, _ := ev["type"].(string)
		if typ == "" {
			t.Fatalf("event without type: %q", line)
		}
		if len(types) == 0 || types[len(types)-1] != typ {
			types = append(types, typ)
		}
		switch typ {
		case "text_delta":
			text += ev["text"].(string)
		case "reasoning_delta":
			reasoning += ev["text"].(string)
		case "tool_call":
			if ev["name"] != "bash" || ev["id"] != "call_1" {
				t.Errorf("tool_call = %v", ev)
			}
			if in, ok := ev["input"].(map[string]any); !ok || in["command"] != "echo tool-output" {
				t.Errorf("tool_call input = %v", ev["input"])
			}
		case "tool_result":
			if !strings.Contains(ev["output"].(string), "tool-output") || ev["is_error"] != false {
				t.Errorf("tool_result = %v", ev)
			}
		case "done":
			done = ev
		}
	}
	// Stream order: the call is complete before the step finishes, and
	// the tool runs after it.
	want := "reasoning_delta,tool_call,step_finish,tool_result,text_delta,step_finish,done"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("event order = %s, want %s", got, want)
	}
	if text != "All done: tool-output seen." || reasoning != "Let me look." {
		t.Errorf("text %q reasoning %q", text, reasoning)
	}
	if done == nil || done["finish_reason"] != "stop" || done["session_id"] == "" {
		t.Errorf("done = %v", done)
	}
}

func TestE2EBadInput(t *testing.T) {
	t.Run("no key on the default endpoint", func(t *testing.T) {
		e := newEnv(t)
		e.without("OPENAI_API_KEY")
		e.without("OPENAI_BASE_URL")
		res := e.run("", "run", "hi")
		if res.code != 1 || !strings.Contains(res.stderr, "OPENAI_API_KEY") {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
		if n := len(e.srv.Requests()); n != 0 {
			t.Errorf("%d requests sent", n)
		}
	})
	t.Run("unreachable base URL", func(t *testing.T) {
		e := newEnv(t)
		url := "http://127.0.0.1:1/v1"
		res := e.run("", "run", "--base-url", url, "hi")
		if res.code != 1 || !strings.Contains(res.stderr, "127.0.0.1:1") {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
	})
	t.Run("bad usage", func(t *testing.T) {
		e := newEnv(t)
		for _, args := range [][]string{{"run", "--format", "xml", "hi"}, {"run", "--nope"}, {"frobnicate"}, {"run"}} {
			if res := e.run("", args...); res.code != 2 {
				t.Errorf("%v: exit %d (%s), want 2", args, res.code, res.stderr)
			}
		}
	})
	t.Run("unwritable data dir", func(t *testing.T) {
		e := newEnv(t, pt.Text("x"))
		blocker := filepath.Join(e.home, "file")
		os.WriteFile(blocker, []byte("x"), 0o600)
		res := e.run("", "run", "--data-dir", filepath.Join(blocker, "data"), "hi")
		if res.code != 1 || !strings.Contains(res.stderr, "data") {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
	})
}

func TestE2EPromptFromStdinAndContinue(t *testing.T) {
	e := newEnv(t, pt.Text("first answer"), pt.Text("second answer"))
	if res := e.run("what is in stdin", "run"); res.code != 0 || !strings.Contains(res.stdout, "first answer") {
		t.Fatalf("exit %d: %q %q", res.code, res.stdout, res.stderr)
	}
	if res := e.run("", "run", "-c", "and then?"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	msgs := e.srv.Requests()[1].Chat.Messages
	var users []string
	for _, m := range msgs {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || users[0] != "what is in stdin" || users[1] != "and then?" {
		t.Errorf("continued session sent users %q", users)
	}
}

func TestE2EDoomLoopExits1(t *testing.T) {
	call := pt.ToolCall("c", "bash", `{"command":"echo again"}`)
	e := newEnv(t, call, call, call)
	res := e.run("", "run", "--yes", "loop forever")
	if res.code != 1 || !strings.Contains(res.stderr, "bash") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestE2EInterruptExits130(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newEnv(t, pt.Reply(pt.TextChunk("thinking about it"), pt.Block(release)))
	cmd := exec.Command(agentBin, "run", "long task")
	cmd.Dir, cmd.Env = e.work, e.vars
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130", err)
	}
	// The partial answer was persisted.
	ins := e.run("", "inspect", "-c", "--json")
	if ins.code != 0 || !strings.Contains(ins.stdout, `"messages": 2`) {
		t.Errorf("inspect after interrupt: %d %s %s", ins.code, ins.stdout, ins.stderr)
	}
}

func TestE2EContextMatchesUsage(t *testing.T) {
	e := newEnv(t, pt.Reply(pt.TextChunk("short"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 5000, Completion: 700, Cached: 4000, Reasoning: 200})))
	// The scripted usage is about twice what "hi" carries: trusted, so that
	// the figures are the report's however the system prompt grows.
	trustUsage(t, e, "gpt-4.1")
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "context", "--json")
	if res.code != 0 {
		t.Fatalf("context: %d %s", res.code, res.stderr)
	}
	var snap map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &snap); err != nil {
		t.Fatal(err)
	}
	// gpt-4.1 does not get reasoning back: 5000 + (700 − 200).
	if snap["total"] != float64(5500) || snap["basis"] != "actual" || snap["last_input"] != float64(5000) || snap["last_output"] != float64(500) {
		t.Errorf("snapshot = %v", snap)
	}
	for _, k := range []string{"window", "output_reserve", "free", "new_estimate", "estimate_error", "breakdown"} {
		if _, ok := snap[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	bd := snap["breakdown"].(map[string]any)
	if bd["system"].(float64)+bd["tools"].(float64)+bd["messages"].(float64) != 5500 {
		t.Errorf("breakdown does not add up: %v", bd)
	}
	human := e.run("", "context")
	if !strings.Contains(human.stdout, "5500") {
		t.Errorf("context text = %q", human.stdout)
	}
}

// jsonEvents parses a --format json stream, failing on a line that is not
// a JSON object with a type.
func jsonEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev["type"] == nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestE2EJSONFailures(t *testing.T) {
	tests := []struct {
		name    string
		steps   []pt.Step
		args    []string
		message string // in the error event and done's error
		session bool   // done names a session
	}{
		{"rejected key", []pt.Step{{Status: 401, Body: `{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`}},
			[]string{"hi"}, "401", true},
		{"unknown session", nil, []string{"--session", "01NOSUCHSESSION", "hi"}, "01NOSUCHSESSION", false},
		{"empty answer", []pt.Step{pt.Reply(pt.FinishChunk("stop"), pt.AutoUsageChunk())}, []string{"hi"}, "neither text nor tool calls", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.steps...)
			res := e.run("", append([]string{"run", "--format", "json"}, tt.args...)...)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1: %s", res.code, res.stderr)
			}
			evs := jsonEvents(t, res.stdout)
			last := evs[len(evs)-1]
			if last["type"] != "done" || last["finish_reason"] == "stop" || !strings.Contains(fmt.Sprint(last["error"]), tt.message) {
				t.Errorf("last event = %v", last)
			}
			if (last["session_id"] != "") != tt.session {
				t.Errorf("done session_id = %q", last["session_id"])
			}
			var errs int
			for _, ev := range evs[:len(evs)-1] {
				switch ev["type"] {
				case "done":
					t.Errorf("done before the end: %v", evs)
				case "error":
					errs++
					if !strings.Contains(fmt.Sprint(ev["message"]), tt.message) {
						t.Errorf("error event = %v", ev)
					}
				}
			}
			if errs != 1 {
				t.Errorf("%d error events, want 1: %v", errs, evs)
			}
			if strings.Count(res.stderr, tt.message) > 1 {
				t.Errorf("stderr repeats the error: %q", res.stderr)
			}
		})
	}
}
