package provider

import (
	"encoding/json"
	"testing"
	"time"
)

// quirkCases covers, with the project's own small fixtures in testdata/, the
// provider quirks that matter most, so they stay tested without ../shared.
var quirkCases = []replayCase{
	{file: "index-starts-at-1.sse",
		text: span{8, "Reading.", ""},
		calls: []call{
			{1, "toolu_01", "read", `{"path": "a.go"}`},
			{2, "toolu_02", "ls", `{}`},
		},
		finish: "tool_calls", usage: &Usage{Input: 50, Output: 12}},
	{file: "empty-id-on-later-deltas.sse",
		calls:  []call{{0, "call_keep", "grep", `{"pattern":"TODO"}`}},
		finish: "tool_calls", usage: &Usage{Input: 10, Output: 5}},
	{file: "usage-twice.sse",
		text:   span{5, "Done.", ""},
		finish: "stop", usage: &Usage{Input: 900, Output: 30, CachedInput: 800, CacheWrite: 64, ReportedCostUSD: 0.001}},
	{file: "reasoning-field.sse",
		text:      span{1, "3", ""},
		reasoning: span{21, "Count the r's: three.", ""},
		finish:    "stop", usage: &Usage{Input: 17, Output: 40, Reasoning: 38}},
	{file: "reasoning-both-fields.sse",
		text:      span{2, "ok", ""},
		reasoning: span{11, "Think once.", ""},
		finish:    "stop"},
	{file: "xai-reasoning-excluded.sse",
		text:      span{2, "Hi", ""},
		reasoning: span{4, "Hmm.", ""},
		finish:    "stop", usage: &Usage{Input: 307, Output: 253, Reasoning: 227, CachedInput: 306}},
	{file: "deepseek-cache-hit.sse",
		text:   span{2, "ok", ""},
		finish: "stop", usage: &Usage{Input: 339, Output: 3, CachedInput: 320}},
	{file: "done-without-finish.sse",
		text:   span{5, "short", ""},
		finish: "stop"},
	{file: "stop-with-tool-calls.sse",
		calls:  []call{{0, "call_x", "ls", `{}`}},
		finish: "tool_calls"},
	{file: "tool-call-no-index.sse",
		calls: []call{
			{0, "call_a", "read", `{"path":"a"}`},
			{1, "call_b", "read", `{"path":"b"}`},
		},
		finish: "tool_calls"},
	{file: "tool-args-object.sse",
		calls:  []call{{0, "call_o", "glob", `{"pattern":"*.go"}`}},
		finish: "tool_calls"},
	{file: "tool-call-repeated-after-finish.sse",
		calls:  []call{{0, "call_r", "ls", `{"path":"."}`}},
		finish: "tool_calls", usage: &Usage{Input: 5, Output: 4}},
	{file: "tool-call-without-id.sse",
		calls:  []call{{0, "call_0", "glob", `{"pattern":"*.md"}`}},
		finish: "tool_calls"},
	// Mistral's Magistral: delta.content is an array of typed parts, thinking
	// (itself an array of text parts) and text, sometimes both in one delta,
	// and a plain string later in the same stream.
	{file: "magistral-content-parts.sse",
		text:      span{36, "There are three r's in \"strawberry\".", ""},
		reasoning: span{36, "Count the r's in strawberry: three.\n", ""},
		finish:    "stop", usage: &Usage{Input: 14, Output: 78}},
	// Snowflake Cortex (Claude) sends reasoning only as
	// delta.reasoning_details; the empty part carries the signature.
	{file: "cortex-reasoning-details.sse",
		text:      span{6, "Hello!", ""},
		reasoning: span{26, "The user wants a greeting.", ""},
		finish:    "stop", usage: &Usage{Input: 12, Output: 20}},
	// OpenRouter sends the same text as reasoning and as reasoning_details
	// (once), then details alone; summaries count, encrypted parts do not.
	{file: "openrouter-reasoning-details.sse",
		text:      span{3, "Hi.", ""},
		reasoning: span{17, "**Plan**\n\nSay hi.", ""},
		finish:    "stop", usage: &Usage{Input: 9, Output: 70, Reasoning: 64}},
	// DeepSeek-R1 via Together: the reasoning is a <think> block at the
	// start of the content, its tags split across deltas.
	{file: "together-deepseek-r1-think.sse",
		text:      span{13, "2 + 2 = **4**", ""},
		reasoning: span{21, "Okay, 2 plus 2 is 4.\n", ""},
		finish:    "stop", usage: &Usage{Input: 9, Output: 24}},
	{file: "non-streamed.json",
		text:      span{12, "Let me look.", ""},
		reasoning: span{14, "Need the file.", ""},
		calls:     []call{{0, "call_j", "read", `{"path":"x"}`}},
		finish:    "tool_calls", usage: &Usage{Input: 20, Output: 9}},

	// Errors inside a 200 stream: what came before is delivered, then the
	// error; never a finish.
	{file: "error-event-after-comment.sse",
		text:    span{1, "x", ""},
		failure: fails(ClassContextOverflow), message: "maximum context length is 8192"},
	{file: "midstream-error-overloaded.sse",
		text:    span{3, "par", ""},
		failure: fails(ClassRetryable), message: "Provider returned error: upstream overloaded"},
	// OpenRouter stops an accepted request mid-answer with a 400 error
	// chunk that carries the usage billed so far.
	{file: "openrouter-midstream-error-usage.sse",
		text:    span{28, "The first half of the answer", ""},
		failure: fails(ClassBadRequest), message: "stopped mid-answer: Provider returned error",
		usage: &Usage{Input: 1200, Output: 40, ReportedCostUSD: 0.0012}},
	{file: "finish-error-only.sse",
		text:    span{3, "par", ""},
		failure: fails(ClassRetryable), message: `finish_reason "error"`},
	{file: "vllm-error-object.sse",
		text:    span{1, "x", ""},
		failure: fails(ClassBadRequest), message: "'tool_choice' is not supported"},
	{file: "llamacpp-error-line.sse",
		text:    span{1, "x", ""},
		failure: fails(ClassRetryable), message: "slot unavailable"},
	{file: "cut-stream.sse",
		text:    span{11, "I will read", ""},
		failure: fails(ClassBrokenStream), message: "before a finish reason"},

	// HTTP errors.
	{file: "502-html.http",
		failure: fails(ClassRetryable), status: 502, message: "(HTTP 502): 502 Bad Gateway"},
	{file: "429-retry-after-ms.http",
		failure: fails(ClassRetryable), status: 429, retryAfter: 1500 * time.Millisecond, message: "rate limited (HTTP 429): Rate limit reached"},
	{file: "503-retry-after-date.http",
		failure: fails(ClassRetryable), status: 503, retryAfter: 30 * time.Second, message: "upstream connect error"},
	{file: "400-context-length.http",
		failure: fails(ClassContextOverflow), status: 400, message: "maximum context length is 128000"},
	{file: "400-llamacpp-context.http",
		failure: fails(ClassContextOverflow), status: 400, message: "exceeds the available context size"},
	{file: "401-invalid-key.http",
		failure: fails(ClassAuth), status: 401, message: "check OPENAI_API_KEY"},
	{file: "404-model.http",
		failure: fails(ClassNotFound), status: 404, message: "model 'llama9' not found"},
	{file: "429-insufficient-quota.http",
		failure: fails(ClassOther), status: 429, message: "check your plan and billing"},
	{file: "422-detail.http",
		failure: fails(ClassBadRequest), status: 422, message: "body.messages: field required"},
}

func TestReplayQuirks(t *testing.T) {
	// 503-retry-after-date.http asks to retry at 07:28:30 GMT.
	restore := timeNow
	timeNow = func() time.Time { return time.Date(2026, 10, 21, 7, 28, 0, 0, time.UTC) }
	t.Cleanup(func() { timeNow = restore })
	replay(t, "testdata", quirkCases)
}

func TestUsageNormalise(t *testing.T) {
	tests := []struct {
		name string
		wire string
		want Usage
	}{
		{"openai", `{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":30}}`,
			Usage{Input: 100, Output: 50, Reasoning: 30, CachedInput: 40}},
		{"xai excludes reasoning", `{"prompt_tokens":100,"completion_tokens":20,"total_tokens":150,"completion_tokens_details":{"reasoning_tokens":30}}`,
			Usage{Input: 100, Output: 50, Reasoning: 30}},
		{"no total", `{"prompt_tokens":100,"completion_tokens":20,"completion_tokens_details":{"reasoning_tokens":30}}`,
			Usage{Input: 100, Output: 20, Reasoning: 30}},
		{"null details, top-level reasoning", `{"prompt_tokens":19,"completion_tokens":1720,"total_tokens":1739,"prompt_tokens_details":null,"completion_tokens_details":null,"reasoning_tokens":700}`,
			Usage{Input: 19, Output: 1720, Reasoning: 700}},
		{"deepseek cache hit", `{"prompt_tokens":339,"completion_tokens":3,"total_tokens":342,"prompt_cache_hit_tokens":320}`,
			Usage{Input: 339, Output: 3, CachedInput: 320}},
		{"cached counted apart", `{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":500}}`,
			Usage{Input: 510, Output: 3, CachedInput: 500}},
		{"floats and strings", `{"prompt_tokens":12.0,"completion_tokens":"7","total_tokens":null}`,
			Usage{Input: 12, Output: 7}},
		{"cache writes", `{"prompt_tokens":900,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":800,"cache_write_tokens":64}}`,
			Usage{Input: 900, Output: 30, CachedInput: 800, CacheWrite: 64}},
	}
	for _, tt := range tests {
		var w usageWire
		if err := json.Unmarshal([]byte(tt.wire), &w); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := w.normalise(); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestEventTypeNames(t *testing.T) {
	for ty := EventTextDelta; ty <= EventFinish; ty++ {
		if ty.String() == "unknown" {
			t.Errorf("event type %d has no name", ty)
		}
	}
	for c := ClassOther; c <= ClassCanceled; c++ {
		if c != ClassOther && c.String() == "other" {
			t.Errorf("class %d has no name", c)
		}
	}
}
