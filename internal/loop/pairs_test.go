package loop

import (
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
)

// TestRepairPairs: whatever a history holds, the request has every call
// answered once, right after it (issue 12.9).
func TestRepairPairs(t *testing.T) {
	call := func(ids ...string) openai.ChatCompletionMessage {
		m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "bash", Arguments: "{}"}})
		}
		return m
	}
	result := func(id string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: "out " + id}
	}
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "hi"}
	tests := []struct {
		name    string
		in      []openai.ChatCompletionMessage
		want    string
		repairs int
	}{
		{"intact", []openai.ChatCompletionMessage{user, call("a", "b"), result("a"), result("b")}, "u a(a,b) t:a t:b", 0},
		{"missing result", []openai.ChatCompletionMessage{user, call("a", "b"), result("a"), user}, "u a(a,b) t:a t:b! u", 1},
		{"results out of order", []openai.ChatCompletionMessage{call("a", "b"), result("b"), result("a")}, "a(a,b) t:a t:b", 0},
		{"duplicate result", []openai.ChatCompletionMessage{call("a"), result("a"), result("a")}, "a(a) t:a", 1},
		{"orphan result", []openai.ChatCompletionMessage{user, result("x"), call("a"), result("a"), result("y")}, "u a(a) t:a", 2},
		{"id used twice", []openai.ChatCompletionMessage{call("a"), result("a"), call("a"), result("a")}, "a(a) t:a", 2},
		{"result after a user message", []openai.ChatCompletionMessage{call("a"), user, result("a")}, "a(a) t:a! u", 2},
	}
	for _, tt := range tests {
		got, n := RepairPairs(tt.in)
		if s := shape(got); s != tt.want || n != tt.repairs {
			t.Errorf("%s: %q with %d repairs, want %q with %d", tt.name, s, n, tt.want, tt.repairs)
		}
		assertAnswered(t, got)
	}
}

// shape writes a request compactly: u (user), a(ids) (assistant calls),
// t:id (result; ! when synthetic).
func shape(msgs []openai.ChatCompletionMessage) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case openai.ChatMessageRoleUser:
			parts = append(parts, "u")
		case openai.ChatMessageRoleAssistant:
			s := "a("
			for i, tc := range m.ToolCalls {
				if i > 0 {
					s += ","
				}
				s += tc.ID
			}
			parts = append(parts, s+")")
		case openai.ChatMessageRoleTool:
			s := "t:" + m.ToolCallID
			if m.Content == message.InterruptedOutput {
				s += "!"
			}
			parts = append(parts, s)
		}
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += " "
		}
		out += p
	}
	return out
}
