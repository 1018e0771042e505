package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// lastUser is in tui_e2e_test.go.

// TestE2ERunStdinSteer: with --stdin-steer, a line written to a live run's
// standard input steers it: it is in the next request of the same turn.
func TestE2ERunStdinSteer(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t,
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "ls", `{}`, 1), pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("steered"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--format", "json", "--yes", "--stdin-steer", "start")
	cmd.Dir, cmd.Env = e.work, e.vars
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte("use tabs\n")); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var types []string
	for lines.Scan() {
		var ev struct{ Type string }
		json.Unmarshal(lines.Bytes(), &ev)
		types = append(types, ev.Type)
		if ev.Type == "queued" {
			close(release)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v; events %v", err, types)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2; events %v", len(reqs), types)
	}
	msgs := reqs[1].Chat.Messages
	if lastUser(reqs[1]) != "use tabs" || msgs[len(msgs)-2].Role != "tool" {
		t.Errorf("the turn's second request ends with %q after %s, want the steering after the tool result", lastUser(reqs[1]), msgs[len(msgs)-2].Role)
	}
	if all := strings.Join(types, ","); !strings.HasPrefix(all, "queued,") || !strings.Contains(all, ",dequeued,") {
		t.Errorf("events %v", types)
	}
}

// TestE2ETUISteerAndQueue: in the chat, Enter while the agent works steers
// the running turn and Tab queues for after it; the badge counts both; the
// queue panel flips an item; Esc hands everything still queued back.
func TestE2ETUISteerAndQueue(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t,
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "ls", `{}`, 1), pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("steered and done"),
		pt.Text("the docs are written"),
	)
	s := startTUI(t, e)
	s.send("start")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.send("use tabs")
	s.typeText("then docs")
	s.keys("Tab")
	s.typeText("then tests")
	s.keys("Tab")
	s.waitText("1 steering · 2 queued")
	s.keys("C-q")
	s.waitText("3. queue then tests")
	s.keys("Down", "Down", "Tab")
	s.waitText("2 steering · 1 queued")
	s.keys("Escape")
	close(release)
	s.waitText("the docs are written")
	s.idle()
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if got := lastUser(reqs[1]); got != "First: use tabs\n\nAlso: then tests" {
		t.Errorf("the turn's second step got %q, want both steering messages", got)
	}
	msgs := reqs[2].Chat.Messages
	if lastUser(reqs[2]) != "then docs" || msgs[len(msgs)-2].Content != "steered and done" {
		t.Errorf("the turn after got %q after %q, want the queued message in a turn of its own", lastUser(reqs[2]), msgs[len(msgs)-2].Content)
	}
}

// TestE2ERunMentionInRequest: a headless prompt's @file reaches the request
// with the file's content.
func TestE2ERunMentionInRequest(t *testing.T) {
	e := newEnv(t, pt.Text("summarised"))
	if err := os.WriteFile(filepath.Join(e.work, "notes.md"), []byte("the plan is to ship on friday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "run", "summarise @notes.md")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := lastUser(e.srv.Requests()[0]); !strings.Contains(got, "summarise @notes.md") || !strings.Contains(got, "ship on friday") {
		t.Errorf("the request's message:\n%s", got)
	}
}

// TestE2ETUIBangCommand: !ls in the chat shows its output in a card, makes
// no request, and the output is in the next request.
func TestE2ETUIBangCommand(t *testing.T) {
	e := newEnv(t, pt.Text("hello"), pt.Text("I see the marker"))
	if err := os.WriteFile(filepath.Join(e.work, "marker-file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTUI(t, e)
	s.send("hi")
	s.waitText("hello")
	s.idle()
	s.send("!ls")
	s.waitText("marker-file.txt")
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("%d requests after !ls", n)
	}
	s.send("what is there?")
	s.waitText("I see the marker")
	reqs := e.srv.Requests()
	msgs := reqs[1].Chat.Messages
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, "marker-file.txt") {
		t.Errorf("the output is not in the next request:\n%s", got)
	}
}
