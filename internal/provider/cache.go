package provider

// Explicit prompt-cache breakpoints. Anthropic's models (directly, or
// through OpenRouter and gateways like it) cache a request's prefix only up
// to content parts marked cache_control {"type":"ephemeral"}, at most four
// a request (openrouter.ai/docs, prompt caching; docs.anthropic.com,
// prompt caching). A marked message's content is sent as an array of text
// parts, the last one carrying the marker; the other messages are sent as
// go-openai encodes them. The encoding is a pure function of the request,
// so a message marked in two requests has the same bytes in both.

import (
	"encoding/json"
	"fmt"

	"github.com/sashabaranov/go-openai"
)

// MaxCacheBreakpoints is the most breakpoints a request may carry.
const MaxCacheBreakpoints = 4

// wireRequest is a chat request whose messages are encoded apart.
type wireRequest struct {
	openai.ChatCompletionRequest
	Messages []json.RawMessage `json:"messages"`
}

// encodeRequest is the JSON body of cr with the messages at the indexes of
// breakpoints marked (past MaxCacheBreakpoints, the last ones win).
func encodeRequest(cr openai.ChatCompletionRequest, breakpoints []int) ([]byte, error) {
	if len(breakpoints) == 0 {
		return json.Marshal(cr)
	}
	if len(breakpoints) > MaxCacheBreakpoints {
		breakpoints = breakpoints[len(breakpoints)-MaxCacheBreakpoints:]
	}
	mark := map[int]bool{}
	for _, i := range breakpoints {
		mark[i] = true
	}
	w := wireRequest{ChatCompletionRequest: cr, Messages: make([]json.RawMessage, len(cr.Messages))}
	for i, m := range cr.Messages {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if mark[i] {
			if b, err = markCache(b); err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
		}
		w.Messages[i] = b
	}
	return json.Marshal(w)
}

// markCache returns the encoded message b with cache_control on its last
// content part, a string content becoming one text part. A message with no
// text (an assistant's tool calls alone) is returned as is.
func markCache(b []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	var parts []map[string]any
	var text string
	switch raw := fields["content"]; {
	case len(raw) == 0:
		return b, nil
	case json.Unmarshal(raw, &text) == nil:
		if text == "" {
			return b, nil
		}
		parts = []map[string]any{{"type": "text", "text": text}}
	case json.Unmarshal(raw, &parts) == nil:
		if len(parts) == 0 {
			return b, nil
		}
	default:
		return b, nil
	}
	parts[len(parts)-1]["cache_control"] = map[string]string{"type": "ephemeral"}
	content, err := json.Marshal(parts)
	if err != nil {
		return nil, err
	}
	fields["content"] = content
	return json.Marshal(fields)
}
