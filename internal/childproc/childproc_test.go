//go:build linux

package childproc

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/tools"
)

// envAgent makes the test binary, started again with it set to a
// registry directory, play an agent: it starts a child through the
// registry, prints the child's pid and its background job's, and waits to
// be killed.
const envAgent = "CHILDPROC_TEST_AGENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(envAgent); dir != "" {
		fakeAgent(dir)
		return
	}
	os.Exit(m.Run())
}

func fakeAgent(dir string) {
	cmd := exec.Command("sh", "-c", `sleep 300 & echo "$$ $!"; wait`)
	out, _ := cmd.StdoutPipe()
	if _, err := Open(dir).Start(cmd); err != nil {
		os.Stdout.WriteString("start: " + err.Error() + "\n")
		os.Exit(1)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	os.Stdout.WriteString(line)
	select {}
}

// alivePid reports whether pid runs (a zombie does not).
func alivePid(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitGone polls pid until it is gone or the deadline passes.
func waitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alivePid(pid) {
			return true
		}
	}
	return !alivePid(pid)
}

// TestKilledAgentsChildDiesAndTheNextStartReapsItsGroup kills an "agent"
// with SIGKILL: its child dies at once (the parent-death signal), the
// child's background job is left, and Reap — the next agent's start —
// stops it and removes the record.
func TestKilledAgentsChildDiesAndTheNextStartReapsItsGroup(t *testing.T) {
	dir := t.TempDir()
	agent := exec.Command(os.Args[0], "-test.run=^$")
	agent.Env = append(os.Environ(), envAgent+"="+dir)
	out, _ := agent.StdoutPipe()
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer agent.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the agent printed no pids: %v", err)
	}
	var child, job int
	f := strings.Fields(line)
	if len(f) != 2 {
		t.Fatalf("agent said %q", line)
	}
	child, _ = strconv.Atoi(f[0])
	job, _ = strconv.Atoi(f[1])
	t.Cleanup(func() { syscall.Kill(-child, syscall.SIGKILL) })
	if recs, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(recs) != 1 {
		t.Fatalf("records while the child runs: %v", recs)
	}

	// A live agent's records are not reaped.
	if errs := Open(dir).Reap(); len(errs) > 0 || !alivePid(child) {
		t.Fatalf("Reap touched a live agent's child: %v, child alive %v", errs, alivePid(child))
	}

	agent.Process.Kill()
	agent.Wait()
	if !waitGone(child, 5*time.Second) {
		t.Fatalf("the child %d runs on after its agent was killed", child)
	}
	if !alivePid(job) {
		t.Skip("the background job died too: nothing left to reap")
	}
	if errs := Open(dir).Reap(); len(errs) > 0 {
		t.Fatalf("reap: %v", errs)
	}
	if !waitGone(job, 5*time.Second) {
		t.Errorf("the background job %d runs on after Reap", job)
	}
	if recs, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(recs) != 0 {
		t.Errorf("records left after Reap: %v", recs)
	}
}

// TestChildOutlivesTheThreadThatAskedForIt starts a child from a goroutine
// that ends locked to its thread, so the runtime ends the thread: the
// child was forked by the spawner, not that thread, and runs on.
func TestChildOutlivesTheThreadThatAskedForIt(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	started := make(chan error, 1)
	tid := make(chan int, 1)
	// The runtime never ends the main thread: start from another one.
	for ok := false; !ok; {
		next := make(chan bool)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if syscall.Gettid() == os.Getpid() {
				runtime.UnlockOSThread()
				next <- false
				return
			}
			next <- true
			tid <- syscall.Gettid()
			_, err := (*Registry)(nil).Start(cmd)
			started <- err
		}()
		ok = <-next
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	task := "/proc/self/task/" + strconv.Itoa(<-tid)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(task); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the runtime kept the thread")
		}
	}
	// Were it the child's parent thread, SIGKILL would be on its way.
	if waitGone(cmd.Process.Pid, 200*time.Millisecond) {
		t.Fatal("the child died with the thread of the goroutine that started it")
	}
	if g := tools.DescribeGroup(cmd.Process.Pid); g.PGID != cmd.Process.Pid {
		t.Errorf("group %+v", g)
	}
	if pgid, _ := syscall.Getpgid(cmd.Process.Pid); pgid != cmd.Process.Pid {
		t.Errorf("the child's group is %d, want its own (%d)", pgid, cmd.Process.Pid)
	}
}
