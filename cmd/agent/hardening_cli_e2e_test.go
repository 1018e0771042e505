package main

// End-to-end regression tests of issue 11's command-line items: the agent's
// own git runs nothing of the repository's (11.2), a retried stream prints
// the final answer only (11.10), the default step cap fails loudly
// (11.13), inspect strips terminal escapes (11.11), and the read-only
// commands work on a read-only data directory (11.15).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// gitRepo makes e.work a committed git repository with a stat-dirty file.
func gitRepo(t *testing.T, e *env) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.work
		cmd.Env = append(e.vars, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(e.work, "main.go"), []byte("package main\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "init")
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(e.work, "main.go"), future, future)
}

func TestE2EGitConfigRunsNothing(t *testing.T) {
	e := newEnv(t, pt.Text("first"), pt.Text("second"))
	gitRepo(t, e)
	marker := filepath.Join(t.TempDir(), "fsmonitor.ran")
	script := filepath.Join(t.TempDir(), "fsmonitor.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nenv >> "+marker+"\n"), 0o755)
	cfg := filepath.Join(e.work, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tfsmonitor = " + script + "\n")
	f.Close()
	index := filepath.Join(e.work, ".git", "index")
	before, _ := os.ReadFile(index)

	for _, args := range [][]string{{"run", "hi"}, {"run", "-c", "again"}, {"context", "-c"}, {"sessions", "--all"}} {
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("agent %v: exit %d: %s", args, res.code, res.stderr)
		}
		if data, err := os.ReadFile(marker); err == nil {
			if bytes.Contains(data, []byte(testKey)) {
				t.Errorf("agent %v ran core.fsmonitor with the API key in its environment", args)
			}
			t.Fatalf("agent %v ran the repository's core.fsmonitor", args)
		}
	}
	// The repository's status still reached the model.
	reqs := e.srv.Requests()
	if len(reqs) == 0 || !bytes.Contains(reqs[0].Body, []byte("## main")) {
		t.Errorf("the system prompt lacks the git status")
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Error("the agent rewrote .git/index")
	}
}

// retriedSteps is a turn whose last step breaks after partial text and is
// retried: a tool step with its own text, a cut stream, the full answer.
func retriedSteps() []pt.Step {
	return []pt.Step{
		pt.Reply(append([]pt.Chunk{pt.TextChunk("Let me look first.")},
			append(pt.ToolCallChunks(0, "call_1", "bash", `{"command":"echo looked"}`, 1),
				pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)...),
		pt.CutShort(pt.TextChunk("PARTIAL-ANSWER-SHOULD")),
		pt.Text("second attempt full answer"),
	}
}

func TestE2ERetriedStreamPrintsTheFinalAnswerOnly(t *testing.T) {
	e := newEnv(t, retriedSteps()...)
	res := e.run("", "run", "--yes", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if res.stdout != "second attempt full answer\n" {
		t.Errorf("piped stdout = %q, want the final answer only", res.stdout)
	}
	if !strings.Contains(res.stderr, "retrying") {
		t.Errorf("stderr does not mention the retry: %q", res.stderr)
	}
}

func TestE2ERetriedStreamJSONText(t *testing.T) {
	e := newEnv(t, retriedSteps()...)
	res := e.run("", "run", "--yes", "--format", "json", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var stepTexts []any
	var voided bool
	var done map[string]any
	for _, ev := range jsonEvents(t, res.stdout) {
		switch ev["type"] {
		case "step_finish":
			stepTexts = append(stepTexts, ev["text"])
		case "retrying":
			voided = ev["void_text"] == true
		case "done":
			done = ev
		}
	}
	if fmt.Sprint(stepTexts) != "[Let me look first. second attempt full answer]" {
		t.Errorf("step_finish texts = %q", stepTexts)
	}
	if !voided {
		t.Error("the retrying event does not say the attempt's text is void")
	}
	if done == nil || done["text"] != "second attempt full answer" {
		t.Errorf("done = %v, want text the final answer", done)
	}
}

// TestRetryOnATerminal: on a terminal the answer streams, and a retry ends
// the void partial line and says so on stderr.
func TestRetryOnATerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	w.tty = true
	part := &message.Part{ID: "p1", MessageID: "m1", Type: message.PartText}
	w.observe(message.Event{Type: message.EventPartDelta, Part: part, Delta: "PARTIAL"})
	w.observe(message.Event{Type: message.EventRetrying, Retry: &message.RetryInfo{Attempt: 1, Delay: time.Second, Reason: "stream cut"}})
	part2 := &message.Part{ID: "p2", MessageID: "m2", Type: message.PartText}
	w.observe(message.Event{Type: message.EventPartDelta, Part: part2, Delta: "full answer"})
	w.observe(message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "p3", MessageID: "m2", Type: message.PartStepFinish, Step: &message.StepState{FinishReason: "stop"}}})
	w.done(message.Session{}, loop.TurnResult{FinishReason: "stop"}, 0, nil)
	if out.String() != "PARTIAL\nfull answer\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if !strings.Contains(errOut.String(), "[retrying") || !strings.Contains(errOut.String(), "void") {
		t.Errorf("stderr = %q, want a visible retry mark", errOut.String())
	}
}

// alwaysCallsTools scripts a model that never stops calling a tool, each
// time with a new input so that no doom loop interferes.
func alwaysCallsTools(srv *pt.Server) {
	var n atomic.Int64
	srv.Handle(func(pt.Request) pt.Step {
		i := n.Add(1)
		return pt.ToolCall(fmt.Sprintf("call_%d", i), "glob", fmt.Sprintf(`{"pattern":"*.x%d"}`, i))
	})
}

func TestE2EDefaultStepCapFails(t *testing.T) {
	e := newEnv(t)
	alwaysCallsTools(e.srv)
	start := time.Now()
	res := e.run("", "run", "--format", "json", "loop forever")
	t.Logf("%d steps in %v", len(e.srv.Requests()), time.Since(start))
	if res.code != 1 {
		t.Errorf("exit %d at the default step cap, want 1", res.code)
	}
	if !strings.Contains(res.stderr, "default limit of 200 steps") || !strings.Contains(res.stderr, "--max-steps") {
		t.Errorf("stderr = %q, want the default limit named", res.stderr)
	}
	evs := jsonEvents(t, res.stdout)
	done := evs[len(evs)-1]
	if done["type"] != "done" || done["finish_reason"] != "max_steps" || done["steps"] != float64(200) {
		t.Errorf("done = %v", done)
	}
}

func TestE2EExplicitStepCapSucceeds(t *testing.T) {
	e := newEnv(t)
	alwaysCallsTools(e.srv)
	res := e.run("", "run", "--max-steps", "3", "loop forever")
	if res.code != 0 {
		t.Errorf("exit %d at an explicit --max-steps, want 0: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "stopped after 3 steps") {
		t.Errorf("stderr = %q, want the limit said", res.stderr)
	}
}

func TestE2EInspectStripsTerminalEscapes(t *testing.T) {
	e := newEnv(t, pt.Text("ok"))
	hostile := "\x1b]0;pwned-title\x07\x1b]52;c;ZXZpbA==\x07fix the bug"
	if res := e.run("", "run", hostile); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "inspect", "-c")
	if res.code != 0 {
		t.Fatalf("inspect: exit %d: %s", res.code, res.stderr)
	}
	if strings.ContainsAny(res.stdout, "\x1b\x07") {
		t.Errorf("inspect prints terminal escapes: %q", res.stdout)
	}
	if !strings.Contains(res.stdout, "fix the bug") {
		t.Errorf("inspect lost the title: %q", res.stdout)
	}
	// JSON keeps the stored title exactly (escaped by JSON itself).
	js := e.run("", "inspect", "-c", "--json")
	if !strings.Contains(js.stdout, `\u001b]52`) {
		t.Errorf("inspect --json = %q, want the title as stored", js.stdout)
	}
}

// TestE2EReadOnlyCommandsOnAReadOnlyDataDir: sessions, context and inspect
// read a database they cannot write, in a directory they cannot write. As
// root, where permissions do not bind, the commands run as nobody.
func TestE2EReadOnlyCommandsOnAReadOnlyDataDir(t *testing.T) {
	base, err := os.MkdirTemp("", "agent-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	os.Chmod(base, 0o755)
	bin := filepath.Join(base, "agent")
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, data, 0o755)

	e := newEnv(t, pt.Text("ok"))
	e.home, e.work = filepath.Join(base, "home"), filepath.Join(base, "work")
	e.data = filepath.Join(e.home, "data")
	os.MkdirAll(e.work, 0o755)
	e.vars = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "AGENT_DATA_DIR=" + e.data,
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "OPENAI_API_KEY=" + testKey, "OPENAI_BASE_URL=" + e.srv.URL}
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	os.Chmod(e.home, 0o755)
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		const nobody = 65534
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		filepath.WalkDir(base, func(path string, _ os.DirEntry, _ error) error {
			return os.Lchown(path, nobody, nobody)
		})
	}
	runRO := func(args ...string) result {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = e.work, e.vars
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("agent %v: %v", args, err)
		}
		return result{out.String(), errb.String(), code}
	}
	db := filepath.Join(e.data, "agent.db")
	for _, tt := range []struct {
		name           string
		dirMode, dbMod os.FileMode
	}{
		{"read-only directory", 0o500, 0o600},
		{"read-only database", 0o700, 0o400},
		{"both", 0o500, 0o400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Chmod(db, tt.dbMod)
			os.Chmod(e.data, tt.dirMode)
			defer os.Chmod(e.data, 0o700)
			before, _ := os.ReadDir(e.data)
			for _, args := range [][]string{{"sessions"}, {"sessions", "--all", "--json"}, {"context", "-c"}, {"inspect", "-c"}} {
				res := runRO(args...)
				if res.code != 0 || res.stdout == "" {
					t.Errorf("agent %v: exit %d, stdout %q, stderr %q", args, res.code, res.stdout, res.stderr)
				}
			}
			if after, _ := os.ReadDir(e.data); len(after) != len(before) {
				t.Errorf("the data directory changed: %v → %v", before, after)
			}
		})
	}
}
