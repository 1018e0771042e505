package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// memoryScript plays a model that uses memory: "remember: X" calls
// remember{X}; a question about tests searches the memories when the
// system prompt says there are some (and reads the Makefile otherwise);
// a tool result is answered with what it says.
func memoryScript(req pt.Request) pt.Step {
	msgs := req.Chat.Messages
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == openai.ChatMessageRoleTool:
		return pt.Text("From memory: " + last.Content)
	case strings.HasPrefix(last.Content, "remember: "):
		text, _ := json.Marshal(strings.TrimPrefix(last.Content, "remember: "))
		return pt.ToolCall("call_rem", "remember", `{"text":`+string(text)+`}`)
	case strings.Contains(last.Content, "tests"):
		if sentContent(msgs, "Project memory:") {
			return pt.ToolCall("call_search", "memory_search", `{"query":"run the tests"}`)
		}
		return pt.ToolCall("call_read", "read", `{"path":"Makefile"}`)
	}
	return pt.Text("ok")
}

// TestE2EMemoryAcrossSessions: a fact remembered in one session answers a
// question in a new session of the same directory through memory_search,
// with no file read; the memory records where it came from; a secret is
// refused; agent memory list|add|rm manage them.
func TestE2EMemoryAcrossSessions(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(memoryScript)
	run := func(args ...string) result {
		t.Helper()
		res := e.run("", args...)
		if res.code != 0 {
			t.Fatalf("agent %v: %d %s", args, res.code, res.stderr)
		}
		return res
	}

	run("run", "--yes", "remember: The tests of this project run with make check-all")
	var ms []map[string]any
	if err := json.Unmarshal([]byte(run("memory", "list", "--json").stdout), &ms); err != nil || len(ms) != 1 {
		t.Fatalf("memory list: %v %v", ms, err)
	}
	if ms[0]["session_id"] == nil || ms[0]["message_id"] == nil || ms[0]["status"] != "active" {
		t.Fatalf("the memory does not say where it came from: %v", ms[0])
	}

	before := len(e.srv.Requests())
	out := run("run", "how do I run the tests?").stdout
	if !strings.Contains(out, "make check-all") {
		t.Fatalf("the answer does not come from memory: %q", out)
	}
	for _, req := range e.srv.Requests()[before:] {
		for _, m := range req.Chat.Messages {
			for _, c := range m.ToolCalls {
				if c.Function.Name != "memory_search" {
					t.Fatalf("session 2 called %s, want memory_search only", c.Function.Name)
				}
			}
		}
	}
	if !sentContent(e.srv.Requests()[before].Chat.Messages, "Project memory: 1 fact is remembered") {
		t.Fatal("the new session's system prompt does not count the memory")
	}

	// A secret is never kept: by the tool, nor by the command.
	res := e.run("", "run", "--yes", "--format", "json", "remember: the deploy token is ghp_0123456789abcdefghijABCDEFGHIJ0123")
	if !strings.Contains(res.stdout, "remember refused: the text holds a GitHub token") {
		t.Fatalf("remember of a token was not refused: %s", res.stdout)
	}
	if res := e.run("", "memory", "add", "key "+testKey); res.code != 2 || !strings.Contains(res.stderr, "the API key") {
		t.Fatalf("memory add of the key: %d %s", res.code, res.stderr)
	}
	added := run("memory", "add", "--json", "--pin", "Deploys go through make ship").stdout
	var m map[string]any
	if err := json.Unmarshal([]byte(added), &m); err != nil || m["pinned"] != true {
		t.Fatalf("memory add: %s %v", added, err)
	}
	if out := run("memory", "list").stdout; strings.Count(out, "\n") != 2 || !strings.Contains(out, "[project, pinned] Deploys go through make ship") {
		t.Fatalf("memory list:\n%s", out)
	}
	run("memory", "rm", m["id"].(string))
	if res := e.run("", "memory", "rm", m["id"].(string)); res.code == 0 || !strings.Contains(res.stderr, "no memory") {
		t.Fatalf("rm twice: %d %s", res.code, res.stderr)
	}
}

// TestE2EMemoryAddedMidSessionKeepsThePrefix: a memory the model adds in
// the middle of a turn changes no byte of what the next request sends
// before it (the system prompt's memory count included).
func TestE2EMemoryAddedMidSessionKeepsThePrefix(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(memoryScript)
	if res := e.run("", "memory", "add", "--pin", "The project is written in Go"); res.code != 0 {
		t.Fatalf("memory add: %s", res.stderr)
	}
	if res := e.run("", "run", "--yes", "remember: Releases are tagged vX.Y.Z"); res.code != 0 {
		t.Fatalf("run: %s", res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (remember, then the answer)", len(reqs))
	}
	first, next := reqs[0].Chat, reqs[1].Chat
	if !sentContent(first.Messages, "Project memory: 1 fact is remembered") || !sentContent(first.Messages, "- The project is written in Go") {
		t.Fatalf("the first request lacks the memory section: %+v", first.Messages[:2])
	}
	if len(next.Messages) <= len(first.Messages) {
		t.Fatalf("the next request has %d messages, the first %d", len(next.Messages), len(first.Messages))
	}
	for i, m := range first.Messages {
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(next.Messages[i])
		if string(a) != string(b) {
			t.Fatalf("message %d changed after the memory was added:\nbefore %s\nafter  %s", i, a, b)
		}
	}
	a, _ := json.Marshal(first.Tools)
	b, _ := json.Marshal(next.Tools)
	if string(a) != string(b) {
		t.Fatal("the tools changed after the memory was added")
	}
	if out := e.run("", "memory", "list").stdout; !strings.Contains(out, "Releases are tagged vX.Y.Z") {
		t.Fatalf("the memory was not kept:\n%s", out)
	}
}
