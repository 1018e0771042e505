package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

func TestToModelMessagesRules(t *testing.T) {
	tool := func(id string, st message.ToolStatus, out string, compacted bool) message.Part {
		ts := &message.ToolState{CallID: id, Name: "bash", Status: st, Input: `{"command":"ls"}`, Output: out}
		if compacted {
			ts.CompactedAt = time.Unix(1, 0)
		}
		return message.Part{Type: message.PartTool, Tool: ts}
	}
	hist := []message.Entry{
		{Message: message.Message{ID: "01", Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartText, Text: "go"}}},
		{Message: message.Message{ID: "02", Role: message.RoleAssistant}, Parts: []message.Part{
			{Type: message.PartReasoning, Text: "thinking"},
			{Type: message.PartText, Text: "running"},
			tool("a", message.ToolCompleted, "old output", true),
			tool("b", message.ToolRunning, "", false),
			tool("c", message.ToolCompleted, "fresh output", false),
		}},
		// Failed before saying anything: skipped.
		{Message: message.Message{ID: "03", Role: message.RoleAssistant, Error: "boom"}, Parts: []message.Part{{Type: message.PartStepStart}}},
		// Superseded by a retry: skipped although it has text.
		{Message: message.Message{ID: "04", Role: message.RoleAssistant, Error: ErrSuperseded}, Parts: []message.Part{{Type: message.PartText, Text: "half"}}},
		{Message: message.Message{ID: "05", Role: message.RoleAssistant}, Parts: []message.Part{{Type: message.PartText, Text: "done"}}},
	}
	msgs := ToModelMessages(hist, ConvertOptions{})
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"user:go", "assistant:running", "tool:" + message.ClearedOutput, "tool:" + message.InterruptedOutput, "tool:fresh output", "assistant:done"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if msgs[1].ReasoningContent != "" {
		t.Error("reasoning sent without reasoning_roundtrip")
	}
	if rt := ToModelMessages(hist, ConvertOptions{ReasoningRoundtrip: true}); rt[1].ReasoningContent != "thinking" {
		t.Errorf("reasoning with roundtrip = %q", rt[1].ReasoningContent)
	}
}

func TestEnvironmentPrompt(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "pkg")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("Run make test before you finish."), 0o644)
	user := filepath.Join(t.TempDir(), "AGENTS.md")
	os.WriteFile(user, []byte("Answer in British English."), 0o644)

	env := DetectEnvironment(t.Context(), sub, user)
	out := env.Render()
	for _, want := range []string{"Working directory: " + sub, "Run make test before you finish.", "Answer in British English.", "Today's date: "} {
		if !strings.Contains(out, want) {
			t.Errorf("dynamic prompt lacks %q:\n%s", want, out)
		}
	}
	parts := SystemPrompt(env)
	if len(parts) != 2 || parts[0] != stablePrompt || strings.Contains(parts[0], sub) {
		t.Error("the stable part must come first and hold nothing that varies")
	}
}
