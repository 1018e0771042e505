package lsp

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a process that has not exited (a zombie
// waiting to be reaped has).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// A session closed while its server hangs leaves nothing running: not the
// server, nor what the server started.
func TestClosedSessionLeavesNoProcessOfTheServer(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := t.TempDir() + "/helper.pid"
	t.Setenv("LSP_FAKE_PIDFILE", pidFile)
	s := New(fakeConfig(t, "spawn", 300))
	env := session(t, s)
	res := run(t, env, "write", map[string]any{"path": "a.fk", "content": "one\n"})
	if !strings.Contains(res.Output, "diagnostics unavailable") {
		t.Fatalf("a hung server's edit: %s", res.Output)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the server started no helper: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	s.Close()
	// Nothing to wait on but the process table: a bounded poll.
	for deadline := time.Now().Add(3 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server's helper (pid %d) outlived the session", pid)
		}
	}
}
