package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

// toServer sends every request to srv, whatever host its URL names, so
// that a provider configured with a vendor's base URL (openrouter.ai)
// speaks that vendor's dialect to the test's fake server.
type toServer struct{ srv *url.URL }

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.URL.Path = t.srv.Scheme, t.srv.Host, "/v1/chat/completions"
	r.Host = t.srv.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestEffortOnTheWire: Request.Effort reaches the server in the dialect
// the base URL's family speaks — reasoning_effort for OpenAI-style servers
// and a local one (a peer's effort never reached local servers),
// reasoning.effort for OpenRouter, thinking's budget for Anthropic's
// compatible endpoint — in one place only, and nothing at all when the
// request has no effort.
func TestEffortOnTheWire(t *testing.T) {
	for _, tt := range []struct {
		name, baseURL, effort string
		want                  map[string]any // top-level fields that must be there
		absent                []string
	}{
		{"local server", "", "high", map[string]any{"reasoning_effort": "high"}, []string{"reasoning", "thinking"}},
		{"openai", "https://api.openai.com/v1", "minimal", map[string]any{"reasoning_effort": "minimal"}, []string{"reasoning"}},
		{"gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "low", map[string]any{"reasoning_effort": "low"}, []string{"reasoning"}},
		{"xai", "https://api.x.ai/v1", "high", map[string]any{"reasoning_effort": "high"}, []string{"reasoning"}},
		{"groq", "https://api.groq.com/openai/v1", "medium", map[string]any{"reasoning_effort": "medium"}, []string{"reasoning"}},
		{"openrouter", "https://openrouter.ai/api/v1", "high", map[string]any{"reasoning": map[string]any{"effort": "high"}}, []string{"reasoning_effort"}},
		{"anthropic", "https://api.anthropic.com/v1", "low", map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 4096.0}}, []string{"reasoning_effort", "reasoning"}},
		{"no effort", "https://openrouter.ai/api/v1", "", nil, []string{"reasoning_effort", "reasoning", "thinking"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, providertest.Text("ok"), providertest.Text("ok"))
			cfg := Config{BaseURL: srv.URL}
			if tt.baseURL != "" {
				u, _ := url.Parse(srv.URL)
				cfg = Config{BaseURL: tt.baseURL, HTTPClient: &http.Client{Transport: toServer{u}}}
			}
			p := NewOpenAI(cfg)
			tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "ls", Parameters: json.RawMessage(`{"type":"object"}`)}}}
			for _, req := range []Request{
				{Model: "m", Effort: tt.effort, MaxTokens: 64000, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}},
				// With cache breakpoints and tools: the other encoding path.
				{Model: "claude-x", Effort: tt.effort, MaxTokens: 64000, Tools: tools, CacheBreakpoints: []int{0},
					Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}},
			} {
				s, err := p.Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				drain(t, s)
			}
			for i, got := range srv.Requests() {
				var body map[string]any
				if err := json.Unmarshal(got.Body, &body); err != nil {
					t.Fatalf("request %d: %v: %s", i, err, got.Body)
				}
				for k, v := range tt.want {
					if b, _ := json.Marshal(body[k]); string(b) != mustJSON(t, v) {
						t.Errorf("request %d: %s = %s, want %s", i, k, b, mustJSON(t, v))
					}
				}
				for _, k := range tt.absent {
					if _, ok := body[k]; ok {
						t.Errorf("request %d: %s sent: %s", i, k, got.Body)
					}
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
