package provider

import (
	"errors"
	"testing"
)

func TestContextLimit(t *testing.T) {
	tests := []struct {
		msg           string
		limit, prompt int64
	}{
		{"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", 128000, 130512},
		{"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).", 4096, 4000},
		{"'max_tokens' is too large: 1000. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1000 > 4096 - 3500).", 4096, 3500},
		{"prompt is too long: 210000 tokens > 200000 maximum", 200000, 210000},
		{"This model's maximum prompt length is 131072 but the request contains 150000 tokens.", 131072, 150000},
		{"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1048576, 1200000},
		{"the request exceeds the available context size, try increasing it", 0, 0},
		{"maximum context length exceeded", 0, 0},
		{"Please reduce the length of the messages or completion.", 0, 0},
		{"maximum context length is 128,000 tokens", 128000, 0},
	}
	for _, tt := range tests {
		err := &Error{Class: ClassContextOverflow, StatusCode: 400, Message: tt.msg}
		limit, prompt := ContextLimit(err)
		if limit != tt.limit || prompt != tt.prompt {
			t.Errorf("ContextLimit(%q) = %d, %d; want %d, %d", tt.msg, limit, prompt, tt.limit, tt.prompt)
		}
	}
	if l, p := ContextLimit(&Error{Class: ClassBadRequest, Message: "maximum context length is 4096 tokens"}); l != 0 || p != 0 {
		t.Errorf("a bad request that is not a context error gave %d, %d", l, p)
	}
	if l, _ := ContextLimit(errors.New("maximum context length is 4096 tokens")); l != 0 {
		t.Errorf("an unclassified error gave a limit %d", l)
	}
}
