package provider

import (
	"bytes"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// FuzzAppendMessageIsMarshalJSON: the hand-written encoding of a message
// is go-openai's MarshalJSON, byte for byte, for any strings and shapes
// it writes, and it declines the shapes it does not.
func FuzzAppendMessageIsMarshalJSON(f *testing.F) {
	f.Add("assistant", "hello <b>&\u2028 \x00\x1f\b\f\t\"\\ é \xff", "", "think", "call_1", "bash", `{"command":"ls"}`, "", uint8(1))
	f.Add("tool", "", "n", "", "", "", "", "call_1", uint8(6))
	f.Add("user", "\u2029\u2027\x7f", "", "", "", "", "", "", uint8(0))
	f.Fuzz(func(t *testing.T, role, content, name, reasoning, callID, fn, args, toolCallID string, shape uint8) {
		m := openai.ChatCompletionMessage{Role: role, Content: content, Name: name, ReasoningContent: reasoning, ToolCallID: toolCallID}
		if shape&1 != 0 {
			idx := int(shape)
			m.ToolCalls = []openai.ToolCall{{ID: callID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: fn, Arguments: args}}, {Type: "x"}}
			if shape&2 != 0 {
				m.ToolCalls[0].Index = &idx
			}
		}
		if shape&4 != 0 {
			m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: content}}
			m.Content = ""
		}
		if shape&8 != 0 {
			m.Refusal = "r" + content
		}
		if shape&16 != 0 {
			m.FunctionCall = &openai.FunctionCall{Name: fn}
		}
		want, err := m.MarshalJSON()
		got, ok := appendMessage(nil, &m)
		if shape&(4|8|16) != 0 {
			if ok {
				t.Fatalf("wrote a message of shape %d: %s", shape, got)
			}
			return
		}
		if err != nil || !ok {
			t.Fatalf("MarshalJSON: %v; written: %v", err, ok)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("written\n%s\nMarshalJSON\n%s", got, want)
		}
	})
}
