package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// updateTypes are the sessionUpdate kinds and statuses of us, as JSON.
func updateJSON(t *testing.T, us []sdk.SessionUpdate) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, u := range us {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		out = append(out, m)
	}
	return out
}

// TestToolCallTransitions: a tool part is announced once, then updated
// with its input (title, locations, the diff of a write) and each status,
// and its output when it ends.
func TestToolCallTransitions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tc := newToolCalls(dir)
	p := &message.Part{ID: "p1", Type: message.PartTool, Tool: &message.ToolState{CallID: "c1", Name: "write", Status: message.ToolPending}}
	first := updateJSON(t, tc.update(p))
	if len(first) != 1 || first[0]["sessionUpdate"] != "tool_call" || first[0]["kind"] != "edit" || first[0]["status"] != "pending" {
		t.Fatalf("announce: %v", first)
	}
	st := *p.Tool
	st.Input = `{"path":"a.txt","content":"new\n"}`
	p.Tool = &st
	withInput := updateJSON(t, tc.update(p))
	if len(withInput) != 1 || withInput[0]["title"] != "write: a.txt" || withInput[0]["locations"] == nil {
		t.Fatalf("input: %v", withInput)
	}
	diff := withInput[0]["content"].([]any)[0].(map[string]any)
	if diff["type"] != "diff" || diff["oldText"] != "old\n" || diff["newText"] != "new\n" || diff["path"] != filepath.Join(dir, "a.txt") {
		t.Errorf("diff %v", diff)
	}
	if id, d := tc.partOf("c1"); id != "p1" || d == nil || d.Diff == nil {
		t.Errorf("partOf: %s %v", id, d)
	}
	st.Status = message.ToolRunning
	if u := updateJSON(t, tc.update(p)); len(u) != 1 || u[0]["status"] != "in_progress" {
		t.Errorf("running: %v", u)
	}
	if u := tc.update(p); len(u) != 0 {
		t.Errorf("nothing changed, yet %d updates", len(u))
	}
	st.Status, st.Output = message.ToolCompleted, "Wrote a.txt"
	done := updateJSON(t, tc.update(p))
	if len(done) != 1 || done[0]["status"] != "completed" || len(done[0]["content"].([]any)) != 2 {
		t.Errorf("completed: %v", done)
	}
	st.Status, st.Output = message.ToolError, "boom"
	if u := updateJSON(t, tc.update(p)); len(u) != 1 || u[0]["status"] != "failed" {
		t.Errorf("failed: %v", u)
	}
}

func TestKinds(t *testing.T) {
	for name, want := range map[string]sdk.ToolKind{"read": "read", "edit": "edit", "write": "edit", "bash": "execute", "grep": "search",
		"glob": "search", "web_fetch": "fetch", "todo_write": "think", "task": "other", "srv__tool": "other"} {
		if got := kindOf(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// TestPromptBlocks: links inside the directory become mentions, others
// their path or URI; embedded text is quoted; audio and binary are
// refused; an empty prompt is refused.
func TestPromptBlocks(t *testing.T) {
	s := &session{dir: "/work/proj"}
	in, err := s.readPrompt([]sdk.ContentBlock{
		sdk.TextBlock("look at"),
		sdk.ResourceLinkBlock("main.go", "file:///work/proj/cmd/main.go"),
		sdk.ResourceLinkBlock("other", "file:///etc/hosts"),
		sdk.ResourceLinkBlock("web", "https://example.com/x"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///work/proj/a.go", Text: "package a"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"look at", "@cmd/main.go", "/etc/hosts", "https://example.com/x", `<context uri="file:///work/proj/a.go">` + "\npackage a\n</context>"} {
		if !strings.Contains(in.text, want) {
			t.Errorf("prompt %q lacks %q", in.text, want)
		}
	}
	for _, bad := range [][]sdk.ContentBlock{
		{sdk.AudioBlock("AAAA", "audio/wav")},
		{sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///x", Blob: "AAAA"}})},
		{sdk.TextBlock("  ")},
		{sdk.ImageBlock("not base64!", "image/png")},
	} {
		if _, err := s.readPrompt(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestMCPServersFromTheClient(t *testing.T) {
	got, err := mcpServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"-v"}, Env: []sdk.EnvVariable{{Name: "A", Value: "1"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "web", Url: "http://127.0.0.1:1/mcp", Headers: []sdk.HttpHeader{{Name: "X", Value: "y"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if fs := got["fs"]; fs.Command != "mcp-fs" || fs.Args[0] != "-v" || fs.Env["A"] != "1" {
		t.Errorf("stdio %+v", fs)
	}
	if w := got["web"]; w.URL != "http://127.0.0.1:1/mcp" || w.Headers["X"] != "y" {
		t.Errorf("http %+v", w)
	}
	if _, err := mcpServers([]sdk.McpServer{{Sse: &sdk.McpServerSseInline{Name: "old"}}}); err == nil || !strings.Contains(err.Error(), "SSE") {
		t.Errorf("sse: %v", err)
	}
}

func TestStopReasons(t *testing.T) {
	for fr, want := range map[string]sdk.StopReason{"stop": "end_turn", loop.FinishCancelled: "cancelled", loop.FinishMaxSteps: "max_turn_requests",
		"length": "max_tokens", "content_filter": "refusal"} {
		r, err := stopReason(loop.TurnResult{FinishReason: fr})
		if err != nil || r.StopReason != want {
			t.Errorf("%s: %v %v", fr, r.StopReason, err)
		}
	}
	if _, err := stopReason(loop.TurnResult{FinishReason: loop.FinishError, Err: errors.New("provider down")}); err == nil || !strings.Contains(err.Error(), "Internal") {
		t.Errorf("failed turn: %v", err)
	}
}

// TestParseGuard: lines that are not JSON are answered with -32700 and
// not passed on; the others pass whole, in order.
func TestParseGuard(t *testing.T) {
	var out bytes.Buffer
	r := parseGuard(strings.NewReader("{\"a\":1}\nnot json\n\n{\"b\":2}\n"), &lockedWriter{w: &out})
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Errorf("passed %q", got)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || !strings.Contains(out.String(), `"id":null`) {
		t.Errorf("answered %q", out.String())
	}
}

func TestNotesOfTheLoop(t *testing.T) {
	for _, c := range []struct {
		ev   message.Event
		want string
	}{
		{message.Event{Type: message.EventCompacted, Compaction: &message.CompactionState{TokensBefore: 900, TokensAfter: 300}}, "context compacted: 900 → 300 tokens"},
		{message.Event{Type: message.EventRetrying, Retry: &message.RetryInfo{Attempt: 2, Delay: 1500 * time.Millisecond, Reason: "429"}}, "retrying in 1.5s (attempt 2): 429"},
		{message.Event{Type: message.EventNote, Note: "checkpoints are off"}, "checkpoints are off"},
		{message.Event{Type: message.EventStatus, Busy: true}, ""},
	} {
		if got := noteOf(c.ev); got != c.want {
			t.Errorf("%s: %q, want %q", c.ev.Type, got, c.want)
		}
	}
}
