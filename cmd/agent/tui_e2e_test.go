package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// The chat's end-to-end tests run the real binary in tmux against the
// scripted server, type into it with send-keys and read the screen with
// capture-pane. Each test has its own tmux server (-L), so they do not
// collide.

// tuiScreen is a running chat in a tmux pane of 120×40.
type tuiScreen struct {
	t      *testing.T
	socket string
}

// exitMarker is printed by the pane's shell when the agent exits.
const exitMarker = "AGENT-EXITED:"

func startTUI(t *testing.T, e *env, args ...string) *tuiScreen {
	t.Helper()
	return startTUIAfter(t, e, "", args...)
}

// startTUIAfter starts the chat in a pane whose shell first runs before
// (a shell command, "" for none), as a user's shell would.
func startTUIAfter(t *testing.T, e *env, before string, args ...string) *tuiScreen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the chat's end-to-end tests need it (apt-get install tmux)")
	}
	s := &tuiScreen{t: t, socket: fmt.Sprintf("agent-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	vars := append(append([]string(nil), e.vars...), "TERM=xterm-256color")
	cmd := "cd " + shellQuote(e.work) + " && "
	if before != "" {
		cmd += before + "; "
	}
	cmd += "env -i"
	for _, v := range vars {
		cmd += " " + shellQuote(v)
	}
	cmd += " " + shellQuote(agentBin)
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	cmd += "; echo " + exitMarker + "$?; sleep 600"
	s.tmux("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "main", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("the chat to open", func(screen string) bool {
		return strings.Contains(screen, "Message the agent") && !strings.Contains(screen, "opening")
	})
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *tuiScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (s *tuiScreen) screen() string { return s.tmux("capture-pane", "-p", "-t", "main") }

// waitFor polls the screen until cond holds.
func (s *tuiScreen) waitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen := s.screen()
		if cond(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, screen)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func (s *tuiScreen) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), func(screen string) bool { return strings.Contains(screen, text) })
}

// typeText types literal text.
func (s *tuiScreen) typeText(text string) { s.tmux("send-keys", "-t", "main", "-l", text) }

// keys presses keys by tmux name (Enter, Escape, C-c, PageUp).
func (s *tuiScreen) keys(names ...string) {
	s.tmux(append([]string{"send-keys", "-t", "main"}, names...)...)
}

// send types a message and presses Enter.
func (s *tuiScreen) send(text string) {
	s.typeText(text)
	s.keys("Enter")
}

// idle waits for the agent to finish its turn.
func (s *tuiScreen) idle() string {
	s.t.Helper()
	return s.waitFor("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc interrupts") })
}

// agentPID is the agent's pid: the child of the pane's shell.
func (s *tuiScreen) agentPID() int {
	s.t.Helper()
	shell := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))
	data, err := os.ReadFile(fmt.Sprintf("/proc/%s/task/%s/children", shell, shell))
	if err != nil {
		s.t.Fatalf("children of the pane's shell: %v", err)
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		s.t.Fatal("the agent is not running")
	}
	pid, _ := strconv.Atoi(fields[0])
	return pid
}

func lastUser(req pt.Request) string {
	msgs := req.Chat.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

func TestE2ETUITypingWhileBusyQueues(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t,
		pt.Reply(pt.TextChunk("working on the first"), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("handled the second"),
	)
	s := startTUI(t, e)
	s.send("first message")
	s.waitText("working on the first")
	s.send("second message")
	s.waitText("1 steering")
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("%d requests while the first turn runs", n)
	}
	close(release)
	s.waitText("handled the second")
	screen := s.idle()
	if strings.Contains(screen, "steering") {
		t.Errorf("badge still shown:\n%s", screen)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || lastUser(reqs[1]) != "second message" {
		t.Fatalf("the queued message did not reach the next request: %d requests", len(reqs))
	}
}

func TestE2ETUIContextOverlayMatchesCLI(t *testing.T) {
	e := newEnv(t, pt.Reply(pt.TextChunk("short answer"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 5000, Completion: 700, Cached: 4000, Reasoning: 200})))
	s := startTUI(t, e)
	s.send("hi")
	s.waitText("short answer")
	s.idle()
	s.send("/context")
	screen := s.waitText("Total ")
	m := regexp.MustCompile(`Total (~?)([\d,]+) of ([\d,]+) tokens`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no total in the overlay:\n%s", screen)
	}
	shown, _ := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
	window, _ := strconv.ParseInt(strings.ReplaceAll(m[3], ",", ""), 10, 64)

	res := e.run("", "context", "--json")
	if res.code != 0 {
		t.Fatalf("agent context --json: exit %d: %s", res.code, res.stderr)
	}
	var snap struct {
		Total  int64  `json:"total"`
		Window int64  `json:"window"`
		Basis  string `json:"basis"`
		Free   int64  `json:"free"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &snap); err != nil {
		t.Fatal(err)
	}
	if shown != snap.Total || window != snap.Window || snap.Total != 5500 {
		t.Errorf("overlay total %d of %d; agent context --json %d of %d (want 5500)", shown, window, snap.Total, snap.Window)
	}
	if (m[1] == "~") != (snap.Basis == "estimated") || !strings.Contains(screen, "basis "+snap.Basis) {
		t.Errorf("basis differs: overlay %q, json %q", m[0], snap.Basis)
	}
	if !strings.Contains(screen, commasE2E(snap.Free)) {
		t.Errorf("overlay lacks free %d:\n%s", snap.Free, screen)
	}
	s.keys("Escape")
	s.waitFor("the overlay to close", func(screen string) bool { return !strings.Contains(screen, "Total ") })
}

func commasE2E(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestE2ETUIEscCancelsStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newEnv(t, pt.Reply(pt.TextChunk("a partial reply"), pt.Block(release)), pt.Text("after the cancel"))
	s := startTUI(t, e)
	s.send("long task")
	s.waitText("a partial reply")
	s.waitText("esc interrupts")
	s.keys("Escape")
	screen := s.waitText("interrupted")
	s.idle()
	if !strings.Contains(screen, "a partial reply") {
		t.Errorf("streamed text lost:\n%s", screen)
	}
	// The session carries on.
	s.send("next")
	s.waitText("after the cancel")
}

func TestE2ETUIEscKillsARunningTool(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_1", "bash", `{"command":"echo $$ > tool.pid; exec sleep 300"}`),
		pt.Text("noted"),
	)
	s := startTUI(t, e)
	s.send("run the slow tool")
	s.waitText("tab answers here") // the dialog takes its keys
	s.keys("M-a")
	pidFile := filepath.Join(e.work, "tool.pid")
	var pid int
	s.waitFor("the tool to start", func(string) bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	s.waitText("running")
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("tool process %d not running before the cancel: %v", pid, err)
	}
	s.keys("Escape")
	s.waitText("interrupted")
	s.idle()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("tool process %d still alive after esc", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if screen := s.screen(); !strings.Contains(screen, "✗ bash") {
		t.Errorf("the tool card does not show the interruption:\n%s", screen)
	}
}

func TestE2ETUICompact(t *testing.T) {
	e := newEnv(t,
		pt.Text("first answer "+strings.Repeat("words ", 300)),
		pt.Text("second answer "+strings.Repeat("more ", 300)),
		pt.Text("third answer"),
		pt.Text("## Goal\nThe summary of the talk."),
	)
	s := startTUI(t, e)
	for i, msg := range []string{"one", "two", "three"} {
		s.send(msg)
		s.waitFor("the answer", func(string) bool { return len(e.srv.Requests()) == i+1 })
		s.idle()
	}
	s.send("/compact keep the answers")
	screen := s.waitText("context compacted")
	if !regexp.MustCompile(`context compacted: [\d.]+K? → [\d.]+K? tokens`).MatchString(screen) {
		t.Errorf("no before → after:\n%s", screen)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 || !strings.Contains(reqs[3].Chat.Messages[len(reqs[3].Chat.Messages)-1].Content, "keep the answers") {
		t.Fatalf("summary request: %d requests", len(reqs))
	}
	s.waitFor("the compaction to end", func(screen string) bool { return !strings.Contains(screen, "compacting") })
	ins := e.run("", "inspect", "-c", "--json")
	if ins.code != 0 || !strings.Contains(strings.ReplaceAll(ins.stdout, " ", ""), `"summaries":1`) {
		t.Errorf("inspect after /compact: %d %s %s", ins.code, ins.stdout, ins.stderr)
	}
}

func TestE2ETUIPermissionApprovesBash(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_1", "bash", `{"command":"echo approved > approved.txt"}`),
		pt.Text("the file is written"),
	)
	s := startTUI(t, e)
	s.send("write the file")
	screen := s.waitText("tab answers here")
	for _, want := range []string{"echo approved > approved.txt", "allow once", "for this session", "deny"} {
		if !strings.Contains(screen, want) {
			t.Errorf("dialog lacks %q:\n%s", want, screen)
		}
	}
	if _, err := os.Stat(filepath.Join(e.work, "approved.txt")); err == nil {
		t.Fatal("the command ran before approval")
	}
	s.keys("M-a")
	s.waitText("the file is written")
	data, err := os.ReadFile(filepath.Join(e.work, "approved.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "approved" {
		t.Fatalf("approved.txt: %q %v", data, err)
	}
	if screen := s.screen(); !strings.Contains(screen, "✓ bash") {
		t.Errorf("no completed card:\n%s", screen)
	}
}

func TestE2ETUICtrlCTwiceQuits(t *testing.T) {
	e := newEnv(t)
	s := startTUI(t, e)
	s.typeText("a draft")
	s.waitText("a draft")
	s.keys("C-c")
	screen := s.waitText("ctrl+c again")
	if strings.Contains(screen, "a draft") {
		t.Errorf("first ctrl+c did not clear the editor:\n%s", screen)
	}
	s.keys("C-c")
	s.waitText(exitMarker + "0")
}

func TestE2ETUIFirstRunWithoutKey(t *testing.T) {
	e := newEnv(t)
	e.without("OPENAI_API_KEY")
	e.without("OPENAI_BASE_URL")
	s := startTUI(t, e)
	screen := s.waitText("No API key")
	if !strings.Contains(screen, "OPENAI_API_KEY") || !strings.Contains(screen, "OPENAI_BASE_URL") {
		t.Errorf("no instructions:\n%s", screen)
	}
	s.send("hello")
	s.waitText("not sent")
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestE2ETUINarrowScreen(t *testing.T) {
	e := newEnv(t, pt.Text("A reply that is long enough to wrap on a screen of sixty columns, with **markdown**."))
	s := startTUI(t, e)
	s.tmux("resize-window", "-t", "main", "-x", "60", "-y", "20")
	s.send("hello there")
	screen := s.waitText("markdown.")
	for i, l := range strings.Split(screen, "\n") {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
}

// TestE2ETUIResumeLargeSession measures the first frame of a resumed
// 10,000-part session, and the process's memory.
func TestE2ETUIResumeLargeSession(t *testing.T) {
	if testing.Short() || raceEnabled() {
		t.Skip("builds a 10,000-part session: SQLite is too slow for that under -short or -race (make e2e runs it)")
	}
	e := newEnv(t)
	id := seedSession(t, e, 2000) // five parts a turn
	start := time.Now()
	s := startTUI(t, e, "--session", id)
	s.waitText("answer number 1999")
	elapsed := time.Since(start)
	rss := rssKB(t, s.agentPID())
	t.Logf("resume of a 10,000-part session: first frame with the last answer after %v (process start included); RSS %d MB", elapsed.Round(time.Millisecond), rss/1024)
	if elapsed > 3*time.Second {
		t.Errorf("first frame after %v", elapsed)
	}
	if rss > 200*1024 {
		t.Errorf("RSS %d MB, want ≤ 200 MB", rss/1024)
	}
	s.keys("PageUp")
	s.waitText("scrolled up")
}

// seedSession writes a session of turns (a user message, and an assistant
// message with text, a tool call, more text and a step-finish: five parts)
// straight into the database.
func seedSession(t *testing.T, e *env, turns int) string {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, e.data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	work, _ := filepath.EvalSymlinks(e.work)
	sess := &message.Session{Title: "a long session", Model: "gpt-4.1", Dir: work}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range turns {
		u := message.Message{SessionID: sess.ID, Role: message.RoleUser, FinishedAt: now}
		if err := st.CreateMessage(ctx, &u); err != nil {
			t.Fatal(err)
		}
		if err := st.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: u.ID, Type: message.PartText, Text: fmt.Sprintf("question number %d", i)}); err != nil {
			t.Fatal(err)
		}
		a := message.Message{SessionID: sess.ID, Role: message.RoleAssistant, Model: "gpt-4.1", FinishReason: "stop", FinishedAt: now}
		if err := st.CreateMessage(ctx, &a); err != nil {
			t.Fatal(err)
		}
		parts := []message.Part{
			{Type: message.PartText, Text: fmt.Sprintf("Here is **answer number %d**, with a list:\n\n- one\n- two\n\n```go\nfmt.Println(%d)\n```", i, i)},
			{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "read", Status: message.ToolCompleted,
				Input: `{"path":"main.go"}`, Title: "read main.go", Output: strings.Repeat("line of the file\n", 20), StartedAt: now, EndedAt: now}},
			{Type: message.PartText, Text: "And that is all."},
			{Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 1000, Output: 100}, FinishReason: "stop"}},
		}
		for _, p := range parts {
			p.SessionID, p.MessageID = sess.ID, a.ID
			if err := st.UpsertPart(ctx, &p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sess.ID
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

func rssKB(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("status of %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return kb
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestE2ETUIHangupKillsTheTool closes the terminal (tmux kill-session sends
// SIGHUP) while a tool runs: the tool's process group is not the
// terminal's, so only the agent can end it, and it must.
func TestE2ETUIHangupKillsTheTool(t *testing.T) {
	e := newEnv(t, pt.ToolCall("call_1", "bash", `{"command":"echo $$ > tool.pid; exec sleep 300"}`))
	s := startTUI(t, e)
	s.send("run the slow tool")
	s.waitText("tab answers here")
	s.keys("M-a")
	pidFile := filepath.Join(e.work, "tool.pid")
	var pid int
	s.waitFor("the tool to start", func(string) bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	s.tmux("kill-session", "-t", "main")
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("tool process %d outlived the terminal", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The session is released as the agent exits (it records the tool's
	// last checkpoint first): the next run takes it over within moments,
	// not after the lease goes stale (30 s).
	e.srv.Add(pt.Text("back"))
	deadline = time.Now().Add(10 * time.Second)
	for {
		res := e.run("", "run", "-c", "again")
		if res.code == 0 {
			break
		}
		if !strings.Contains(res.stderr, "busy") || time.Now().After(deadline) {
			t.Fatalf("resume after hangup: %d %s", res.code, res.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
