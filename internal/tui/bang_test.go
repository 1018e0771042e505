package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// bangPid waits for the pid a !command wrote to path; the command must
// print a line after it (the model's messages are what the wait sees).
func bangPid(t *testing.T, h *harness, path string) int {
	t.Helper()
	pid := 0
	h.waitFor("the command's pid", func(*Model) bool {
		b, _ := os.ReadFile(path)
		if strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return pid > 0
	})
	return pid
}

// groupGone polls until no live process is left in group pgid.
func groupGone(pgid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		if !groupHasLiveMember(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// groupHasLiveMember reports whether a member of group pgid runs (a zombie
// does not).
func groupHasLiveMember(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// TestBangShowsItsOutputLiveAndEscStopsIt runs a !command that prints a
// line and then waits: the line is on screen while it runs, Esc stops
// its whole process group, and what it printed is kept in the
// conversation.
func TestBangShowsItsOutputLiveAndEscStopsIt(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello there")})
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "hello there") })

	h.typeText(`!echo $$ > pid; echo live-line-one; sleep 60 & wait; echo never-$((6*7))`)
	h.key("enter")
	pgid := bangPid(t, h, filepath.Join(h.dir, "pid"))
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	h.waitScreen("live-line-one")
	if !strings.Contains(h.screen(), "running") {
		t.Errorf("the command's card does not say it runs:\n%s", h.screen())
	}

	h.key("esc")
	h.waitFor("the command to end", func(m *Model) bool { return idle(m) && m.bang == nil })
	if !groupGone(pgid, 5*time.Second) {
		t.Errorf("the command's group %d runs on after esc", pgid)
	}
	h.waitScreen("live-line-one")
	if s := h.screen(); strings.Contains(s, "never-42") || strings.Contains(s, "running") {
		t.Errorf("after esc:\n%s", s)
	}
}

// TestBangDiesWithTheChat closes the chat (as a closed terminal does)
// while a !command and its background job run: both are gone when Close
// returns.
func TestBangDiesWithTheChat(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello there")})
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return idle(m) && strings.Contains(h.screen(), "hello there") })

	h.typeText(`!echo $$ > pid; echo started; sleep 60 & wait`)
	h.key("enter")
	pgid := bangPid(t, h, filepath.Join(h.dir, "pid"))
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	h.m.Close()
	if groupHasLiveMember(pgid) {
		t.Errorf("the command's group %d runs on after the chat closed", pgid)
	}
}
