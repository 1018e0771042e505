package loop

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
)

func FuzzCoalesce(f *testing.F) {
	f.Add("use tabs", "", "and test it")
	f.Add("", "", "")
	f.Add("[1]: x", "First: y", "Also: z")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		in := []string{a, b, c}
		out := Coalesce(in)
		var kept []string
		for _, s := range in {
			if strings.TrimSpace(s) != "" {
				kept = append(kept, s)
			}
		}
		switch {
		case len(kept) == 0 && out != "":
			t.Fatalf("nothing to say, got %q", out)
		case len(kept) == 1 && out != kept[0]:
			t.Fatalf("one message changed: %q → %q", kept[0], out)
		}
		rest := out
		for _, s := range kept {
			i := strings.Index(rest, s)
			if i < 0 {
				t.Fatalf("%q lost or out of order in %q", s, out)
			}
			rest = rest[i+len(s):]
		}
	})
}

// historyFrom builds a history from fuzz bytes: each byte picks the next
// message or part and its state, covering summaries, markers, errors,
// superseded attempts, every tool status, pruned outputs and bad JSON.
func historyFrom(data []byte) []message.Entry {
	var h []message.Entry
	id := 0
	next := func() string { id++; return fmt.Sprintf("%08d", id) }
	var cur *message.Entry
	for i, b := range data {
		switch b % 9 {
		case 0, 1:
			h = append(h, message.Entry{Message: message.Message{ID: next(), Role: message.RoleUser},
				Parts: []message.Part{{ID: next(), Type: message.PartText, Text: fmt.Sprintf("user %d", i)}}})
			cur = nil
		case 2:
			m := message.Message{ID: next(), Role: message.RoleAssistant}
			switch b / 9 % 4 {
			case 1:
				m.Error = "boom"
			case 2:
				m.Error = ErrSuperseded
			}
			h = append(h, message.Entry{Message: m})
			cur = &h[len(h)-1]
		case 3:
			if cur != nil {
				cur.Parts = append(cur.Parts, message.Part{ID: next(), Type: message.PartText, Text: fmt.Sprintf("text %d", i)})
			}
		case 4, 5:
			if cur != nil {
				st := []message.ToolStatus{message.ToolPending, message.ToolRunning, message.ToolCompleted, message.ToolError}[b/9%4]
				input := `{"command":"ls"}`
				if b/36%3 == 1 {
					input = `{"command": `
				}
				ts := &message.ToolState{CallID: fmt.Sprintf("call_%d", i), Name: "bash", Status: st, Input: input, Output: "out"}
				if b/108 == 1 {
					ts.CompactedAt = time.Unix(1, 0)
				}
				cur.Parts = append(cur.Parts, message.Part{ID: next(), Type: message.PartTool, Tool: ts})
			}
		case 6:
			if cur != nil {
				cur.Parts = append(cur.Parts, message.Part{ID: next(), Type: message.PartReasoning, Text: "hmm"})
			}
		case 7:
			tail := ""
			if len(h) > 0 && b/9%2 == 0 {
				tail = h[len(h)/2].Message.ID
			}
			h = append(h, message.Entry{Message: message.Message{ID: next(), Role: message.RoleUser, Synthetic: true},
				Parts: []message.Part{{ID: next(), Type: message.PartCompaction, Compaction: &message.CompactionState{TailFrom: tail}}}})
			cur = nil
		case 8:
			h = append(h, message.Entry{Message: message.Message{ID: next(), Role: message.RoleAssistant, Summary: true},
				Parts: []message.Part{{ID: next(), Type: message.PartText, Text: "summary"}}})
			cur = nil
		}
	}
	return h
}

// FuzzToModelMessages checks that whatever the stored history holds, the
// request never has a dangling tool call, a result without its call,
// invalid arguments or an empty assistant message.
func FuzzToModelMessages(f *testing.F) {
	f.Add([]byte{0, 2, 3, 4, 5, 0, 2, 4, 0})
	f.Add([]byte{0, 2, 4, 7, 8, 0, 2, 13, 22, 0})
	f.Add([]byte{2, 4, 4, 4, 8, 2, 6, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, roundtrip := range []bool{false, true} {
			msgs := ToModelMessages(historyFrom(data), ConvertOptions{ReasoningRoundtrip: roundtrip})
			checkRequest(t, msgs)
		}
	})
}

func checkRequest(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	pending := map[string]bool{}
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			if !pending[m.ToolCallID] {
				t.Fatalf("message %d: result for unknown call %q", i, m.ToolCallID)
			}
			if m.Content == "" {
				t.Fatalf("message %d: empty result", i)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			t.Fatalf("message %d (%s) before calls %v were answered", i, m.Role, pending)
		}
		if m.Role == openai.ChatMessageRoleAssistant && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Fatalf("message %d: empty assistant message", i)
		}
		for _, tc := range m.ToolCalls {
			if pending[tc.ID] {
				t.Fatalf("call id %q twice", tc.ID)
			}
			pending[tc.ID] = true
			if !json.Valid([]byte(tc.Function.Arguments)) {
				t.Fatalf("invalid arguments %q", tc.Function.Arguments)
			}
		}
	}
	if len(pending) > 0 {
		t.Fatalf("calls never answered: %v", pending)
	}
}
