package loop

import (
	"math"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// The cost of a step, for usage objects as providers send them (recorded
// where a recording exists), equals the hand-computed figure: prices per
// million tokens from the catalog.
func TestStepCostOfRecordedUsage(t *testing.T) {
	for _, c := range []struct {
		name, model, usage string
		want               float64
	}{
		{
			// crush/openai-gpt-5__parallel_tool_calls__1.sse: gpt-5 at
			// $1.25 in, $0.125 cached, $10 out; reasoning is inside
			// completion_tokens.
			"openai cached", "gpt-5",
			`{"prompt_tokens":6395,"completion_tokens":630,"total_tokens":7025,"prompt_tokens_details":{"cached_tokens":3456,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":576,"audio_tokens":0}}`,
			((6395-3456)*1.25 + 3456*0.125 + 630*10.0) / 1e6,
		},
		{
			// vercel-ai/deepseek__deepseek-tool-call.chunks.txt:
			// deepseek-reasoner at $0.14 miss, $0.0028 hit, $0.28 out
			// (the catalog's models.dev data of 2026-07-02).
			"deepseek hit/miss", "deepseek-reasoner",
			`{"prompt_tokens":339,"completion_tokens":83,"total_tokens":422,"prompt_tokens_details":{"cached_tokens":320},"completion_tokens_details":{"reasoning_tokens":39},"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":19}`,
			(19*0.14 + 320*0.0028 + 83*0.28) / 1e6,
		},
		{
			// DeepSeek's own fields only (no prompt_tokens_details).
			"deepseek hit fields only", "deepseek-chat",
			`{"prompt_tokens":1000,"completion_tokens":10,"total_tokens":1010,"prompt_cache_hit_tokens":900,"prompt_cache_miss_tokens":100}`,
			(100*0.14 + 900*0.0028 + 10*0.28) / 1e6,
		},
		{
			// OpenRouter's documented usage shape (openrouter.ai/docs,
			// usage accounting) for an Anthropic model, without cost:
			// writes at $3.75, the rest of the input at $3, output $15.
			"openrouter anthropic cache write", "claude-sonnet-4.5",
			`{"prompt_tokens":194,"completion_tokens":2,"total_tokens":196,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`,
			(94*3.0 + 100*3.75 + 2*15.0) / 1e6,
		},
		{
			// Anthropic's own names, counted apart from prompt_tokens.
			"anthropic names apart", "claude-sonnet-4.5",
			`{"prompt_tokens":10,"completion_tokens":50,"total_tokens":60,"cache_read_input_tokens":5000,"cache_creation_input_tokens":200}`,
			(10*3.0 + 5000*0.30 + 200*3.75 + 50*15.0) / 1e6,
		},
		{
			// crush/openrouter-kimi-k2__parallel_tool_calls__0.sse: the
			// reported cost wins over the catalog's $140.7e-6.
			"openrouter reported cost", "kimi-k2-0905",
			`{"prompt_tokens":172,"completion_tokens":15,"total_tokens":187,"cost":0.0000337,"is_byok":false,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":0,"audio_tokens":0,"video_tokens":0},"cost_details":{"upstream_inference_cost":0.0000337,"upstream_inference_prompt_cost":0.0000172,"upstream_inference_completions_cost":0.0000165},"completion_tokens_details":{"reasoning_tokens":0,"image_tokens":0}}`,
			0.0000337,
		},
		{
			// With the user's own key, OpenRouter's fee plus the
			// provider's charge.
			"openrouter byok", "kimi-k2-0905",
			`{"prompt_tokens":172,"completion_tokens":15,"total_tokens":187,"cost":0.001,"is_byok":true,"cost_details":{"upstream_inference_cost":0.02}}`,
			0.021,
		},
		{
			// deepseek-v4 through a proxy whose cost is an object: the
			// estimate stands.
			"proxy cost object", "deepseek-chat",
			`{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110,"cost":{"total":5}}`,
			(100*0.14 + 10*0.28) / 1e6,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarnessWith(t, func(_ *Options, cfg *config.Config) { cfg.Model = c.model },
				pt.Reply(pt.JSONChunk(`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`),
					pt.JSONChunk(`{"id":"x","object":"chat.completion.chunk","choices":[],"usage":`+c.usage+`}`)))
			if res := h.turn("hello"); res.Err != nil {
				t.Fatal(res.Err)
			}
			if m := h.srv.Requests()[0].Chat.Model; m != c.model {
				t.Fatalf("request for %q, want %q", m, c.model)
			}
			var got float64
			for _, e := range h.r.History() {
				if e.Message.Role == message.RoleAssistant {
					got = e.Message.CostUSD
				}
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("cost = %.10f, want %.10f", got, c.want)
			}
			if s := h.r.Session().CostUSD; math.Abs(s-c.want) > 1e-12 {
				t.Errorf("session cost = %.10f, want %.10f", s, c.want)
			}
		})
	}
}
