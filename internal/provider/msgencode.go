package provider

// msgencode.go: a message's JSON written by hand (issue 36, scaleresume).
// The request cache encodes every message of a resumed session once
// (loop/reqwarm.go: 4,000 messages for 10,000 parts, while the first
// message is typed); go-openai's MarshalJSON goes through encoding/json's
// reflection, half the warming's CPU. appendMessage writes the same bytes
// for the messages the loop makes — text content, tool calls, a tool
// call id, a name, reasoning content — and says when it cannot (several
// content parts, a refusal, a function_call), and EncodeMessage then uses
// MarshalJSON. The bytes are MarshalJSON's: compact, HTML, U+2028/U+2029
// and invalid UTF-8 escaped as encoding/json does
// (FuzzAppendMessageIsMarshalJSON).

import (
	"strconv"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"
)

// appendMessage appends m's JSON to b; ok is false (b unchanged) when m
// has a field it does not write.
func appendMessage(b []byte, m *openai.ChatCompletionMessage) (_ []byte, ok bool) {
	if m.MultiContent != nil || m.Refusal != "" || m.FunctionCall != nil {
		return b, false
	}
	b = append(b, `{"role":`...)
	b = appendString(b, m.Role)
	if m.Content != "" {
		b = append(b, `,"content":`...)
		b = appendString(b, m.Content)
	}
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, m.Name)
	}
	if m.ReasoningContent != "" {
		b = append(b, `,"reasoning_content":`...)
		b = appendString(b, m.ReasoningContent)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if tc.Index != nil {
				b = append(b, `"index":`...)
				b = strconv.AppendInt(b, int64(*tc.Index), 10)
				b = append(b, ',')
			}
			if tc.ID != "" {
				b = append(b, `"id":`...)
				b = appendString(b, tc.ID)
				b = append(b, ',')
			}
			b = append(b, `"type":`...)
			b = appendString(b, string(tc.Type))
			b = append(b, `,"function":{`...)
			sep := false
			if tc.Function.Name != "" {
				b = append(b, `"name":`...)
				b = appendString(b, tc.Function.Name)
				sep = true
			}
			if tc.Function.Arguments != "" {
				if sep {
					b = append(b, ',')
				}
				b = append(b, `"arguments":`...)
				b = appendString(b, tc.Function.Arguments)
			}
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	if m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = appendString(b, m.ToolCallID)
	}
	return append(b, '}'), true
}

// appendString appends s as encoding/json writes a string with HTML
// escaping on.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// messageSize is about the size of m's JSON: room for its strings and
// its keys, so that appendMessage seldom grows its buffer.
func messageSize(m *openai.ChatCompletionMessage) int {
	n := 64 + len(m.Role) + len(m.Content) + len(m.Name) + len(m.ReasoningContent) + len(m.ToolCallID)
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		n += 64 + len(tc.ID) + len(tc.Type) + len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n + n/16 // escapes
}
