package provider

import (
	"bytes"
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestWarmShellIsTheShellTheRequestUses: a shell warmed from a request
// without its messages is the one that request then reuses, and its body
// is what encoding it whole makes; with or without cache breakpoints,
// an output cap and an effort.
func TestWarmShellIsTheShellTheRequestUses(t *testing.T) {
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "read", Description: "Read <a> & b", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "s"}, {Role: "user", Content: "hi"}}
	for _, base := range []string{"http://127.0.0.1:1/v1", "https://api.openai.com/v1", "https://openrouter.ai/api/v1"} {
		p := NewOpenAI(Config{BaseURL: base}).(*openAIProvider)
		for i, req := range []Request{
			{Model: "gpt-4.1", Tools: tools},
			{Model: "gpt-4.1", Tools: tools, MaxTokens: 32768, CacheBreakpoints: []int{0}},
			{Model: "o3", Tools: tools, MaxTokens: 100, Effort: "high"},
		} {
			p.WarmShell(req)
			shells.Lock()
			warmed := &shells.rest[0]
			shells.Unlock()
			req.Messages = msgs
			cr := p.chatRequest(req, true)
			want, err := encodeWholeBytes(cr, req.CacheBreakpoints)
			if err != nil {
				t.Fatal(err)
			}
			body, err := encodeRequest(cr, req.CacheBreakpoints, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := body.bytes(); !bytes.Equal(got, want) {
				t.Errorf("%s request %d:\n got %s\nwant %s", base, i, got, want)
			}
			shells.Lock()
			reused := &shells.rest[0] == warmed
			shells.Unlock()
			if !reused {
				t.Errorf("%s request %d: the warmed shell was not the request's", base, i)
			}
		}
	}
}
