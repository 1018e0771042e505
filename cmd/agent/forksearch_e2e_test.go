package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EForkIsSearchableAndRecallable: a session says a distinctive word;
// `agent sessions fork` copies it; `agent sessions search --all` lists the
// fork beside the original, and a recall the model calls inside the fork
// finds the word from before the fork point (issue 27 item 3).
func TestE2EForkIsSearchableAndRecallable(t *testing.T) {
	const word = "zephyrinequokka"
	e := newEnv(t)
	e.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		last := msgs[len(msgs)-1]
		switch {
		case last.Role == openai.ChatMessageRoleTool:
			return pt.Text("found it")
		case strings.Contains(last.Content, "look it up"):
			return pt.ToolCall("call_recall", "recall", `{"query":"`+word+`","all":true}`)
		}
		return pt.Text("noted")
	})
	run := func(args ...string) result {
		t.Helper()
		res := e.run("", args...)
		if res.code != 0 {
			t.Fatalf("agent %v: exit %d %s", args, res.code, res.stderr)
		}
		return res
	}

	run("run", "the codeword is "+word)
	var listed []map[string]any
	if err := json.Unmarshal([]byte(run("sessions", "--json").stdout), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("sessions: %v %v", listed, err)
	}
	orig := listed[0]["id"].(string)
	forked := run("sessions", "fork", orig).stdout
	_, forkID, ok := strings.Cut(strings.TrimSpace(forked), " into ")
	if !ok || forkID == "" {
		t.Fatalf("fork: %q", forked)
	}

	var rows []searchRow
	if err := json.Unmarshal([]byte(run("sessions", "search", "--json", "--all", word).stdout), &rows); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range rows {
		found[r.ID] = len(r.Matches) > 0
	}
	if len(rows) != 2 || !found[orig] || !found[forkID] {
		t.Errorf("sessions search --all %s: %+v; want the original %s and the fork %s", word, rows, orig, forkID)
	}
	if text := run("sessions", "search", "--all", word).stdout; !strings.Contains(text, forkID) {
		t.Errorf("sessions search --all (text) does not list the fork %s: %q", forkID, text)
	}

	run("run", "--yes", "--session", forkID, "look it up")
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1].Chat.Messages
	var result string
	for _, m := range last {
		if m.Role == openai.ChatMessageRoleTool && m.ToolCallID == "call_recall" {
			result = m.Content
		}
	}
	if !strings.Contains(result, "1 match(es) for \""+word+"\"") || !strings.Contains(result, "the codeword is "+word) {
		t.Errorf("recall inside the fork: %q; want the pre-fork message found", result)
	}
}
