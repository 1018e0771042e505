//go:build linux

package tools

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/jobs"
)

func bgEnv(t *testing.T, max int) *Env {
	env := newEnv(t)
	env.Jobs = jobs.New(max)
	t.Cleanup(func() { env.Jobs.KillAll() })
	return env
}

// pidsIn reads the whitespace-separated pids a command printed first.
func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(out) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no pid in %q", out)
	}
	return pids
}

// TestBashBackgroundRunsOnUntilKilled: a background bash returns at once
// with an id and its first output, runs on after the call, prints only
// into bash_output, and bash_kill stops it and what it started.
func TestBashBackgroundRunsOnUntilKilled(t *testing.T) {
	env := bgEnv(t, 0)
	start := time.Now()
	res := call(t, env, "bash", map[string]any{"command": "sleep 300 & echo \"pids $$ $!\"; wait", "background": true})
	if took := time.Since(start); took > bgFirstWait+2*time.Second {
		t.Fatalf("the background call took %s", took)
	}
	if res.IsError || !strings.Contains(res.Output, "Started background process bg1") || !strings.Contains(res.Output, "pids ") ||
		!strings.HasPrefix(res.Title, "bash (background): sleep 300") {
		t.Fatalf("start: %+v", res)
	}
	pids := pidsIn(t, res.Output[strings.Index(res.Output, "pids "):strings.Index(res.Output, "pids ")+30])
	for _, pid := range pids {
		if processGone(pid) {
			t.Fatalf("process %d is gone after the call returned", pid)
		}
	}
	if got := call(t, env, "bash_output", map[string]any{"id": "bg1"}); got.IsError || !strings.Contains(got.Output, "(no new output)") || !strings.Contains(got.Output, "bg1 is running") {
		t.Fatalf("bash_output: %+v", got)
	}
	// since reads again what was read already.
	if got := call(t, env, "bash_output", map[string]any{"id": "bg1", "since": 0}); !strings.Contains(got.Output, "pids ") {
		t.Fatalf("bash_output since 0: %q", got.Output)
	}
	kill := call(t, env, "bash_kill", map[string]any{"id": "bg1"})
	if kill.IsError || !strings.Contains(kill.Output, "was stopped") {
		t.Fatalf("bash_kill: %+v", kill)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if got := call(t, env, "bash_output", map[string]any{"id": "bg1"}); !got.IsError || !strings.Contains(got.Output, "there are no background processes") {
		t.Fatalf("bash_output after kill: %+v", got)
	}
}

// TestBashOutputOfAnUnknownIDListsTheLiveOnes is the bad input of an id
// that does not exist, for both tools.
func TestBashOutputOfAnUnknownIDListsTheLiveOnes(t *testing.T) {
	env := bgEnv(t, 0)
	call(t, env, "bash", map[string]any{"command": "echo done", "background": true})
	call(t, env, "bash", map[string]any{"command": "sleep 300", "background": true})
	for _, tool := range []string{"bash_output", "bash_kill"} {
		res := call(t, env, tool, map[string]any{"id": "bg9"})
		if !res.IsError || !strings.Contains(res.Output, `no background process "bg9"`) ||
			!strings.Contains(res.Output, "bg1 (exited: exit code 0: echo done)") || !strings.Contains(res.Output, "bg2 (running: sleep 300)") {
			t.Fatalf("%s of an unknown id: %+v", tool, res)
		}
	}
	if res := call(t, env, "bash_output", map[string]any{"id": "bg1", "since": 999}); !res.IsError || !strings.Contains(res.Output, "past the end") {
		t.Fatalf("since past the end: %+v", res)
	}
}

// TestBashBackgroundIsLimited: bash.max_background processes at most;
// a finished one does not count.
func TestBashBackgroundIsLimited(t *testing.T) {
	env := bgEnv(t, 2)
	call(t, env, "bash", map[string]any{"command": "true", "background": true})
	for i := 0; i < 2; i++ {
		if res := call(t, env, "bash", map[string]any{"command": "sleep 300", "background": true}); res.IsError {
			t.Fatalf("start %d: %+v", i, res)
		}
	}
	res := call(t, env, "bash", map[string]any{"command": "sleep 300", "background": true})
	if !res.IsError || !strings.Contains(res.Output, "bash.max_background") || !strings.Contains(res.Output, "bg3 (running: sleep 300)") {
		t.Fatalf("over the limit: %+v", res)
	}
	if n := env.Jobs.Running(); n != 2 {
		t.Fatalf("running %d", n)
	}
}

// TestBashBackgroundFloodIsBoundedAndSaved: a process that floods its
// output is stopped at the saved output's cap, the model's view keeps
// bash's bounds, and the file keeps what came before the cap.
func TestBashBackgroundFloodIsBoundedAndSaved(t *testing.T) {
	env := bgEnv(t, 0)
	env.Limits = Limits{BashMaxOutputChars: 2000, SavedOutputMaxBytes: 64 * 1024}
	res := call(t, env, "bash", map[string]any{"command": "yes 'flood line'", "background": true})
	if res.IsError {
		t.Fatalf("start: %+v", res)
	}
	j, err := env.Jobs.Get("bg1")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Process.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the flood runs on past the cap")
	}
	out := call(t, env, "bash_output", map[string]any{"id": "bg1", "since": 0})
	if len(out.Output) > 3*2000 || !out.Truncated || !strings.Contains(out.Output, "cut from the middle") || !strings.Contains(out.Output, "process group was killed") {
		t.Fatalf("bash_output of a flood (%d bytes): %q", len(out.Output), out.Output)
	}
	if len(res.Output) > 3*2000 {
		t.Fatalf("the start's output is %d bytes", len(res.Output))
	}
	fi, err := os.Stat(out.FullOutputPath)
	if err != nil || fi.Size() != 64*1024 {
		t.Fatalf("saved output %q: %v, %v", out.FullOutputPath, fi, err)
	}
}

// TestBashBackgroundNeedsATable: without Env.Jobs, a clear error.
func TestBashBackgroundNeedsATable(t *testing.T) {
	res := call(t, newEnv(t), "bash", map[string]any{"command": "sleep 300", "background": true})
	if !res.IsError || !strings.Contains(res.Output, "not available") {
		t.Fatalf("%+v", res)
	}
}
