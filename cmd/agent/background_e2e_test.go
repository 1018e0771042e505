//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Background processes through the real binary (issue 31 item 1): a
// server started in the background is used in the next step and stopped;
// what the model does not stop ends with the run; what a killed agent
// left is reaped by the next start.

// freePort is a port on 127.0.0.1 nothing listens on just now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var groupRE = regexp.MustCompile(`Started background process (bg\d+) \(process group (\d+)\)`)

// startedGroup reads the id and process group a background start reported.
func startedGroup(t *testing.T, out string) (string, int) {
	t.Helper()
	m := groupRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no background start in %q", out)
	}
	pgid, _ := strconv.Atoi(m[2])
	t.Cleanup(func() { killGroup(pgid) })
	return m[1], pgid
}

// groupGone reports whether no live process (zombies do not count) of the
// group pgid is left.
func groupGone(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		b, err := os.ReadFile("/proc/" + en.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 3 && f[0] != "Z" && f[0] != "X" && f[3] == strconv.Itoa(pgid) {
			return false
		}
	}
	return true
}

func bashBackground(id, command string) pt.Step {
	b := fmt.Sprintf(`{"command":%q,"background":true}`, command)
	return pt.ToolCall(id, "bash", b)
}

// TestE2EBackgroundServerCurledThenStopped is the scripted session of the
// issue's targets: start a server in the background, curl it in the next
// step, run the tests, stop it; nothing is left after the run.
func TestE2EBackgroundServerCurledThenStopped(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the test's server is python3 -m http.server")
	}
	port := freePort(t)
	e := newEnv(t,
		bashBackground("c1", fmt.Sprintf("python3 -m http.server %d --bind 127.0.0.1", port)),
		pt.ToolCall("c2", "bash", fmt.Sprintf(`{"command":"for i in $(seq 100); do curl -sf http://127.0.0.1:%d/hello.txt && exit 0; sleep 0.05; done; exit 1"}`, port)),
		pt.ToolCall("c3", "bash", `{"command":"test -f hello.txt && echo ok 1 test passed"}`),
		pt.ToolCall("c4", "bash_output", `{"id":"bg1"}`),
		pt.ToolCall("c5", "bash_kill", `{"id":"bg1"}`),
		pt.Text("served, tested, stopped"))
	if err := os.WriteFile(filepath.Join(e.work, "hello.txt"), []byte("hello from the background\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "run", "--yes", "--format", "json", "serve it")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	id, pgid := startedGroup(t, lastToolContent(reqs[1]))
	if id != "bg1" {
		t.Fatalf("id %s", id)
	}
	if got := lastToolContent(reqs[2]); !strings.Contains(got, "hello from the background") || !strings.Contains(got, "[exit code 0]") {
		t.Fatalf("curl in the next step: %q", got)
	}
	if got := lastToolContent(reqs[3]); !strings.Contains(got, "ok 1 test passed") {
		t.Fatalf("tests: %q", got)
	}
	// The server's request log came out of bash_output, not by itself.
	if got := lastToolContent(reqs[4]); !strings.Contains(got, "GET /hello.txt") || !strings.Contains(got, "bg1 is running") {
		t.Fatalf("bash_output: %q", got)
	}
	for _, r := range reqs[2:4] {
		if strings.Contains(lastToolContent(r), "GET /hello.txt") {
			t.Fatalf("the server's output reached the context unasked: %q", lastToolContent(r))
		}
	}
	if got := lastToolContent(reqs[5]); !strings.Contains(got, "bg1 was stopped and has exited") {
		t.Fatalf("bash_kill: %q", got)
	}
	if !groupGone(pgid) {
		t.Fatalf("the server's group %d runs on after the run", pgid)
	}
	if strings.Contains(res.stderr, "background process(es) at exit") || strings.Contains(res.stdout, "background_stopped") {
		t.Fatalf("a stopped job was reported as left: %s %s", res.stderr, res.stdout)
	}
}

// TestE2EBackgroundLeftRunningEndsWithTheRun: a background process the
// model never stops ends when agent run exits, which says so on stderr
// and in a JSON event.
func TestE2EBackgroundLeftRunningEndsWithTheRun(t *testing.T) {
	e := newEnv(t,
		bashBackground("c1", "sleep 300 & echo started; wait"),
		pt.Text("left it running"))
	res := e.run("", "run", "--yes", "--format", "json", "go")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	_, pgid := startedGroup(t, lastToolContent(e.srv.Requests()[1]))
	if !groupGone(pgid) {
		t.Fatalf("the background group %d runs on after agent run exited", pgid)
	}
	if !strings.Contains(res.stderr, "stopped 1 background process(es) at exit: bg1 (sleep 300 & echo started; wait)") {
		t.Fatalf("stderr: %s", res.stderr)
	}
	var stopped, doneAfter bool
	for _, ev := range jsonEvents(t, res.stdout) {
		switch ev["type"] {
		case "background_stopped":
			jobs, _ := ev["jobs"].([]any)
			if len(jobs) != 1 || jobs[0].(map[string]any)["id"] != "bg1" {
				t.Fatalf("background_stopped: %v", ev)
			}
			stopped = true
		case "done":
			doneAfter = stopped
		}
	}
	if !stopped || !doneAfter {
		t.Fatalf("no background_stopped event before done: %s", res.stdout)
	}
}

// TestE2EKilledAgentsBackgroundIsReapedByTheNextStart kills the agent
// with SIGKILL while its background process (and a job that process
// started) runs: the next start of the agent stops the group.
func TestE2EKilledAgentsBackgroundIsReapedByTheNextStart(t *testing.T) {
	marks := t.TempDir()
	e := newEnv(t,
		bashBackground("c1", `sleep 300 & echo $! > "`+marks+`/job.tmp"; mv "`+marks+`/job.tmp" "`+marks+`/job"; wait`),
		pt.ToolCall("c2", "bash", `{"command":"sleep 300"}`),
		pt.Text("never"))
	cmd := exec.Command(agentBin, "run", "--yes", "--format", "json", "go")
	cmd.Dir, cmd.Env = e.work, e.vars
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var job int
	if !waitFor(10*time.Second, func() bool { job = readPid(filepath.Join(marks, "job")); return job > 0 }) {
		t.Fatal("the background process never started")
	}
	pgid, err := syscall.Getpgid(job)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(pgid) })
	// Killed while the next step's command runs.
	if err := e.srv.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, ok := procStat(job); !ok {
		t.Fatalf("the background job %d died with the agent: nothing is left for the next start to reap", job)
	}
	if res := e.run("", "sessions"); res.code != 0 {
		t.Fatalf("the next start: exit %d: %s", res.code, res.stderr)
	}
	if !waitFor(5*time.Second, func() bool { return groupGone(pgid) }) {
		t.Errorf("the background group %d runs on after the next start", pgid)
	}
}
