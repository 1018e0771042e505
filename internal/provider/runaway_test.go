package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
	openai "github.com/sashabaranov/go-openai"
)

// A line longer than the SSE limit is not a stream worth retrying: the same
// request gets the same line.
func TestOversizedLineIsNotRetryable(t *testing.T) {
	huge := `data: {"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", maxLineBytes+1) + `"}}]}` + "\n\n"
	srv := providertest.New(t, providertest.RawSSE(huge))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	var pe *Error
	if !errors.As(o.err, &pe) || pe.Retryable() || !strings.Contains(pe.Error(), "longer than 2 MiB") {
		t.Fatalf("got %v, want a non-retryable error about a line longer than 2 MiB", o.err)
	}
}

// A server that ignores max_tokens and streams without end is stopped once
// the answer is far beyond the output limit, with a non-retryable error.
func TestRunawayAnswerIsStopped(t *testing.T) {
	const maxTokens = 100
	limit := answerLimitBytes(maxTokens)
	piece := strings.Repeat("all work and no play ", 200) // 4200 bytes
	srv := providertest.New(t)
	srv.Handle(func(providertest.Request) providertest.Step {
		chunks := make([]providertest.Chunk, 0, 2*limit/len(piece)+2)
		for range cap(chunks) {
			chunks = append(chunks, providertest.TextChunk(piece))
		}
		return providertest.CutShort(chunks...)
	})
	p := NewOpenAI(Config{BaseURL: srv.URL})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := p.Stream(ctx, Request{Model: "m", MaxTokens: maxTokens, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "go"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got int
	for {
		ev, err := s.Recv()
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Retryable() || !strings.Contains(pe.Error(), "output limit of 100 tokens") {
				t.Fatalf("got %v, want a non-retryable error naming the output limit", err)
			}
			break
		}
		got += len(ev.Text)
	}
	if got > limit+len(piece) {
		t.Errorf("%d bytes of answer passed, want at most the limit %d and one chunk", got, limit)
	}
}

// OpenAI's own endpoint takes max_completion_tokens for every model (and
// refuses max_tokens for reasoning models); elsewhere max_tokens is what
// servers know, but OpenAI's reasoning families keep max_completion_tokens
// (Azure deployments of them require it).
func TestOutputCapField(t *testing.T) {
	tests := []struct {
		base, model string
		completion  bool
	}{
		{"https://api.openai.com/v1", "gpt-4.1", true},
		{"https://api.openai.com/v1", "o3", true},
		{"http://127.0.0.1:8080/v1", "gpt-4.1", false},
		{"http://127.0.0.1:8080/v1", "qwen3-coder", false},
		{"https://openrouter.ai/api/v1", "openai/gpt-5", false},
		{"https://x.openai.azure.com/openai/v1", "gpt-5-mini", true},
	}
	for _, tt := range tests {
		p := NewOpenAI(Config{BaseURL: tt.base}).(*openAIProvider)
		cr := p.chatRequest(Request{Model: tt.model, MaxTokens: 64}, true)
		if got := cr.MaxCompletionTokens == 64 && cr.MaxTokens == 0; got != tt.completion {
			t.Errorf("%s %s: max_completion_tokens %d max_tokens %d, want max_completion_tokens: %v", tt.base, tt.model, cr.MaxCompletionTokens, cr.MaxTokens, tt.completion)
		}
	}
}
