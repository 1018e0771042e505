package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/childproc"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(childproc.SpawnerFunc))
}

const secret = "sk-hook-secret-123"

func newRunner(t *testing.T, hs ...Hook) *Runner {
	t.Helper()
	env := append(os.Environ(), "OPENAI_API_KEY="+secret, "MY_ALIAS="+secret)
	r, warnings := New(hs, Options{Env: env, Secrets: []string{secret}})
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	return r
}

func TestFireNilAndUnconfigured(t *testing.T) {
	var r *Runner
	if o := r.Fire(context.Background(), Event{Name: Stop}); o.Blocked || o.Runs != nil {
		t.Errorf("nil runner: %+v", o)
	}
	if r, _ := New(nil, Options{}); r != nil {
		t.Error("New without hooks is not nil")
	}
	r = newRunner(t, Hook{Event: PreToolUse, Matcher: "Bash", Command: "exit 2"})
	if o := r.Fire(context.Background(), Event{Name: Stop}); o.Runs != nil {
		t.Errorf("other event ran: %+v", o)
	}
	if o := r.Fire(context.Background(), Event{Name: PreToolUse, Tool: "read"}); o.Runs != nil {
		t.Errorf("unmatched tool ran: %+v", o)
	}
}

func TestFireStdinEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Hook{Event: PreToolUse, Matcher: "Write", Command: `cat > in.json; env > env.txt; pwd > pwd.txt`, Source: "user"})
	ev := Event{Name: PreToolUse, SessionID: "ses1", Dir: dir, Tool: "write", ToolUseID: "call_1",
		ToolInput: json.RawMessage(`{"path":"x.txt","content":"hi"}`)}
	o := r.Fire(context.Background(), ev)
	if len(o.Runs) != 1 || o.Runs[0].ExitCode != 0 || o.Runs[0].Error != "" || o.Runs[0].Source != "user" {
		t.Fatalf("runs = %+v", o.Runs)
	}
	var in map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != PreToolUse || in["tool_name"] != "Write" || in["session_id"] != "ses1" || in["cwd"] != dir ||
		in["tool_input"].(map[string]any)["file_path"] != filepath.Join(dir, "x.txt") {
		t.Errorf("stdin = %s", b)
	}
	envText, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	for _, want := range []string{"AGENT_PROJECT_DIR=" + dir, "CLAUDE_PROJECT_DIR=" + dir, "AGENT_SESSION_ID=ses1", "AGENT_HOOK_EVENT=PreToolUse"} {
		if !strings.Contains(string(envText), want+"\n") {
			t.Errorf("env lacks %s", want)
		}
	}
	if strings.Contains(string(envText), secret) {
		t.Error("the API key reached the hook's environment")
	}
	pwd, _ := os.ReadFile(filepath.Join(dir, "pwd.txt"))
	if real, _ := filepath.EvalSymlinks(dir); strings.TrimSpace(string(pwd)) != real && strings.TrimSpace(string(pwd)) != dir {
		t.Errorf("pwd = %q, want %q", pwd, dir)
	}
}

func TestFireExitTwoBlocksExitOneDoesNot(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t,
		Hook{Event: PreToolUse, Matcher: "Bash", Command: `echo "no rm -rf here" >&2; exit 2`},
		Hook{Event: PostToolUse, Command: `echo "linter crashed" >&2; exit 1`},
	)
	o := r.Fire(context.Background(), Event{Name: PreToolUse, Dir: dir, Tool: "bash", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)})
	if !o.Blocked || o.Reason != "no rm -rf here" || o.Permission != Deny || !o.Runs[0].Blocked || o.Runs[0].ExitCode != 2 {
		t.Errorf("exit 2: %+v", o)
	}
	o = r.Fire(context.Background(), Event{Name: PostToolUse, Dir: dir, Tool: "bash"})
	if o.Blocked || o.Runs[0].Error != "exit status 1" || o.Runs[0].Output != "linter crashed" || o.Runs[0].ExitCode != 1 {
		t.Errorf("exit 1: %+v", o)
	}
}

func TestFireJSONDecision(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Hook{Event: PreToolUse, Command: `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted"}}'`})
	o := r.Fire(context.Background(), Event{Name: PreToolUse, Dir: dir, Tool: "bash"})
	if o.Blocked || o.Permission != Allow || o.Reason != "trusted" {
		t.Errorf("allow: %+v", o)
	}
}

func TestFireTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Hook{Event: Stop, Command: `sleep 30 & echo $! > child.pid; echo started; sleep 30`, Timeout: time.Second})
	start := time.Now()
	o := r.Fire(context.Background(), Event{Name: Stop, Dir: dir})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Fire took %s", took)
	}
	run := o.Runs[0]
	if !run.TimedOut || run.ExitCode != -1 || run.Error != "timed out after 1s; killed" || o.Blocked {
		t.Errorf("run = %+v", run)
	}
	assertGone(t, filepath.Join(dir, "child.pid"))
}

func TestFireCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Hook{Event: Stop, Command: `sleep 30 & echo $! > child.pid; sleep 30`})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- r.Fire(ctx, Event{Name: Stop, Dir: dir}) }()
	waitFile(t, filepath.Join(dir, "child.pid"))
	cancel()
	o := <-done
	if o.Runs[0].TimedOut || !strings.Contains(o.Runs[0].Error, "cancelled") || o.Blocked {
		t.Errorf("run = %+v", o.Runs[0])
	}
	assertGone(t, filepath.Join(dir, "child.pid"))
}

func TestFireRunsHooksInParallel(t *testing.T) {
	dir := t.TempDir()
	// Each waits for the other's file: in sequence the first would time out.
	r := newRunner(t,
		Hook{Event: Stop, Command: `touch a; while [ ! -e b ]; do sleep 0.01; done; echo one`, Timeout: 20 * time.Second},
		Hook{Event: Stop, Command: `touch b; while [ ! -e a ]; do sleep 0.01; done; echo two`, Timeout: 20 * time.Second},
		Hook{Event: Stop, Command: `touch b; while [ ! -e a ]; do sleep 0.01; done; echo two`}, // a duplicate runs once
	)
	o := r.Fire(context.Background(), Event{Name: Stop, Dir: dir})
	if len(o.Runs) != 2 || o.Runs[0].Output != "one" || o.Runs[1].Output != "two" || o.Runs[0].TimedOut || o.Runs[1].TimedOut {
		t.Errorf("runs = %+v", o.Runs)
	}
}

func TestFireOutputIsSanitisedAndBounded(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t,
		Hook{Event: PostToolUse, Command: `printf '\033[31mred\033[0m \033]0;title\007key=%s' "$MY_KEY"`},
		Hook{Event: Stop, Command: `head -c 200000 /dev/zero | tr '\0' x`},
	)
	r.env = append(r.env, "MY_KEY="+secret) // as if a hook found the key elsewhere
	o := r.Fire(context.Background(), Event{Name: PostToolUse, Dir: dir, Tool: "bash"})
	if got := o.Runs[0].Output; got != "red key=[redacted]" {
		t.Errorf("output = %q", got)
	}
	o = r.Fire(context.Background(), Event{Name: Stop, Dir: dir})
	if got := o.Runs[0].Output; len(got) > MaxOutputBytes+100 || !strings.Contains(got, "[hook output truncated: ") {
		t.Errorf("output of %d bytes ends %q", len(got), got[max(0, len(got)-60):])
	}
}

func TestNewWarnsAndSkips(t *testing.T) {
	r, warnings := New([]Hook{
		{Event: "PreToolUze", Command: "true", Source: "user"},
		{Event: Stop, Command: "  "},
		{Event: PreToolUse, Matcher: "(?=x)", Command: "true"},
		{Event: Stop, Command: "true"},
	}, Options{})
	if len(warnings) != 3 || !strings.Contains(warnings[0], `"PreToolUze"`) {
		t.Errorf("warnings = %q", warnings)
	}
	if !r.Has(Stop) || r.Has(PreToolUse) || len(r.Hooks()) != 1 || r.Hooks()[0].Timeout != DefaultTimeout {
		t.Errorf("hooks = %+v", r.Hooks())
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertGone checks that the process whose pid is in path has died.
func assertGone(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) || isZombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z")
}

func TestWithout(t *testing.T) {
	r := newRunner(t, Hook{Event: SessionStart, Command: "true"}, Hook{Event: PreCompact, Command: "true"})
	w := r.Without(SessionStart)
	if w.Has(SessionStart) || !w.Has(PreCompact) || !r.Has(SessionStart) {
		t.Errorf("Without: %v %v %v", w.Has(SessionStart), w.Has(PreCompact), r.Has(SessionStart))
	}
	if r.Without(SessionStart, PreCompact) != nil {
		t.Error("a runner with nothing left is not nil")
	}
}
