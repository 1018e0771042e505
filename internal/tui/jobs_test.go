//go:build linux

package tui

import (
	"regexp"
	"strconv"
	"syscall"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

var jobGroupRE = regexp.MustCompile(`process group (\d+)`)

// startJob has the model start `sleep 300` in the background and returns
// its process group once the turn has ended.
func startJob(t *testing.T) (*harness, int) {
	t.Helper()
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"sleep 300","background":true}`), pt.Text("started")},
		func(o *Options) { o.PermModes = map[string]tools.Mode{"bash": tools.ModeAllow} })
	h.typeText("start it")
	h.key("enter")
	h.waitFor("the background process", func(m *Model) bool { return idle(m) && m.opt.Loop.Jobs.Running() == 1 })
	reqs := h.srv.Requests()
	var tool string
	for _, msg := range reqs[len(reqs)-1].Chat.Messages {
		if msg.Role == "tool" {
			tool = msg.Content
		}
	}
	m := jobGroupRE.FindStringSubmatch(tool)
	if m == nil {
		t.Fatalf("no process group in %q", tool)
	}
	pgid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	h.waitScreen("⚙ 1 bg") // the status line's badge
	return h, pgid
}

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// TestEscTwiceStopsTheBackgroundProcesses: the first Esc of an idle chat
// says what a second does; the second stops every background process.
func TestEscTwiceStopsTheBackgroundProcesses(t *testing.T) {
	h, pgid := startJob(t)
	h.key("esc")
	h.waitScreen("esc again to stop 1 background process")
	if !groupAlive(pgid) {
		t.Fatal("one Esc stopped the background process")
	}
	h.key("esc")
	h.waitScreen("stopped background process bg1")
	if h.m.opt.Loop.Jobs.Running() != 0 || len(h.m.opt.Loop.Jobs.List()) != 0 {
		t.Fatalf("jobs left: %v", h.m.opt.Loop.Jobs.List())
	}
	if groupAlive(pgid) {
		t.Fatalf("the group %d runs on after Esc twice", pgid)
	}
	if s := h.screen(); regexp.MustCompile(`⚙ \d+ bg`).MatchString(s) {
		t.Fatalf("the badge stays:\n%s", s)
	}
}

// TestJobsDrawerListsAndStops: /jobs lists the process; k stops it.
func TestJobsDrawerListsAndStops(t *testing.T) {
	h, pgid := startJob(t)
	h.typeText("/jobs")
	h.key("enter")
	h.waitScreen("Background processes (1 running)")
	h.waitScreen("bg1  running")
	h.key("k")
	h.waitScreen("stopped background process bg1")
	if groupAlive(pgid) {
		t.Fatalf("the group %d runs on after k in /jobs", pgid)
	}
}

// TestJobsKillCommand: /jobs kill stops them all.
func TestJobsKillCommand(t *testing.T) {
	h, pgid := startJob(t)
	h.typeText("/jobs kill")
	h.key("enter")
	h.waitScreen("stopped background process bg1")
	if groupAlive(pgid) {
		t.Fatalf("the group %d runs on after /jobs kill", pgid)
	}
}

// TestLeavingTheChatStopsTheBackgroundProcesses: the session's end (the
// chat closes its runner) ends them.
func TestLeavingTheChatStopsTheBackgroundProcesses(t *testing.T) {
	h, pgid := startJob(t)
	h.close()
	if groupAlive(pgid) {
		t.Fatalf("the group %d runs on after the chat closed", pgid)
	}
}
