package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ESteerFromAnotherProcess: while `agent run --format json` waits on
// a slow step, another process queues two messages into the session with
// `agent steer` (the second with an image). Each prints its id; the run's
// JSON stream names both in its queued events, then delivers them merged
// into one message, and its dequeued, steered and merged events carry both
// ids and that message's id; the next request carries the merged text and
// the image.
func TestE2ESteerFromAnotherProcess(t *testing.T) {
	release := make(chan struct{})
	e, _ := imagesEnv(t,
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "ls", `{}`, 1), pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("tabs it is, and a square"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--format", "json", "--yes", "--model", "house-vl", "start")
	cmd.Dir, cmd.Env = e.work, e.vars
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
	var ids []string
	for _, args := range [][]string{{"use tabs"}, {"--image", "x.png", "look at this"}} {
		res := e.run("", append([]string{"steer", "-c"}, args...)...)
		if res.code != 0 {
			close(release)
			t.Fatalf("agent steer %v: exit %d: %s", args, res.code, res.stderr)
		}
		ids = append(ids, strings.TrimSpace(res.stdout))
	}
	close(release)

	queued := map[string]map[string]any{}
	var dequeued, steered, merged map[string]any
	var all []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %s", lines.Text())
		}
		all = append(all, lines.Text())
		switch ev["type"] {
		case "queued":
			queued[ev["id"].(string)] = ev
		case "dequeued":
			dequeued = ev
		case "steered":
			steered = ev
		case "merged":
			merged = ev
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, strings.Join(all, "\n"))
	}
	stream := strings.Join(all, "\n")
	for i, id := range ids {
		q := queued[id]
		if q == nil {
			t.Fatalf("no queued event names %s:\n%s", id, stream)
		}
		if want := []string{"use tabs", "look at this"}[i]; q["text"] != want || q["kind"] != "steer" {
			t.Errorf("queued %s = %v", id, q)
		}
	}
	if imgs, _ := queued[ids[1]]["images"].([]any); len(imgs) != 1 {
		t.Errorf("the image's queued event: %v", queued[ids[1]])
	}
	named := func(ev map[string]any) []string {
		var got []string
		list, _ := ev["ids"].([]any)
		for _, v := range list {
			got = append(got, v.(string))
		}
		return got
	}
	for name, ev := range map[string]map[string]any{"dequeued": dequeued, "steered": steered, "merged": merged} {
		if ev == nil || !slices.Equal(named(ev), ids) || ev["message_id"] == nil || ev["message_id"] == "" {
			t.Errorf("%s = %v, want ids %v and the message id\n%s", name, ev, ids, stream)
		}
	}
	if dequeued != nil && (dequeued["delivered"] != true || dequeued["count"] != float64(0)) {
		t.Errorf("dequeued = %v", dequeued)
	}

	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	last := msgs[len(msgs)-1]
	if len(last.MultiContent) != 2 || last.MultiContent[0].Text != "First: use tabs\n\nAlso: look at this" ||
		last.MultiContent[1].Type != openai.ChatMessagePartTypeImageURL {
		t.Errorf("the steered message sent: %+v / %q", last.MultiContent, last.Content)
	}
}

// TestE2ESteerRefusesASessionNobodyRuns: `agent steer` into a session no
// process drives fails, queueing nothing.
func TestE2ESteerRefusesASessionNobodyRuns(t *testing.T) {
	e := newEnv(t, pt.Text("hi"))
	if res := e.run("", "run", "hello"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "steer", "-c", "use tabs")
	if res.code != 1 || !strings.Contains(res.stderr, "is not running") {
		t.Errorf("steer into an idle session: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := e.run("", "steer", "-c"); res.code != 2 {
		t.Errorf("steer without a message: exit %d, want 2 (%s)", res.code, res.stderr)
	}
}
