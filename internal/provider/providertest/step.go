package providertest

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Step is the server's answer to one request: a stream of chunks (ended by
// "data: [DONE]" unless NoDone), a raw SSE body, or, when Status is 300 or
// more or Body is set, a plain HTTP response.
type Step struct {
	Chunks []Chunk
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header holds response headers (Retry-After, Content-Type, ...).
	Header map[string]string
	// Body is the body of a plain (non-SSE) response.
	Body string
	// Raw is an SSE body written verbatim, event by event.
	Raw string
	// NoDone leaves out the final "data: [DONE]".
	NoDone bool
	// Silent accepts the request and never answers (no status, no
	// headers) until the client goes away: a hung server.
	Silent bool
}

// Chunk is one item of a streamed step: an SSE event, a pause, or a
// dropped connection.
type Chunk struct {
	data      []byte          // a whole SSE event, written as is
	spec      *chunkSpec      // a chat.completion.chunk rendered per request
	delay     time.Duration   // pause before the next chunk
	block     <-chan struct{} // wait until closed
	abort     bool            // drop the connection
	autoUsage bool            // usage estimated from the request and the step
	prompt    *[2]int         // with autoUsage: the prompt and cached tokens (PromptCache)
}

// Usage is the usage a UsageChunk reports, in the server's terms: Prompt
// includes Cached and Completion includes Reasoning, as at OpenAI.
type Usage struct {
	Prompt     int
	Completion int
	Cached     int
	Reasoning  int
}

// Call is one tool call for ToolCalls.
type Call struct {
	ID, Name, Args string
}

// Text answers s in a few deltas, then finish "stop" and an estimated usage
// (see AutoUsageChunk).
func Text(s string) Step {
	chunks := textChunks(s)
	chunks = append(chunks, FinishChunk("stop"), AutoUsageChunk())
	return Step{Chunks: chunks}
}

// Reply composes a streamed step from chunks; add FinishChunk and
// UsageChunk as needed.
func Reply(parts ...Chunk) Step { return Step{Chunks: parts} }

// ToolCall answers with one tool call (arguments in three fragments), then
// finish "tool_calls" and an estimated usage.
func ToolCall(id, name, args string) Step {
	return ToolCalls(Call{ID: id, Name: name, Args: args})
}

// ToolCalls answers with parallel tool calls at indexes 0, 1, ..., then
// finish "tool_calls" and an estimated usage.
func ToolCalls(calls ...Call) Step {
	var chunks []Chunk
	for i, c := range calls {
		chunks = append(chunks, ToolCallChunks(i, c.ID, c.Name, c.Args, 3)...)
	}
	chunks = append(chunks, FinishChunk("tool_calls"), AutoUsageChunk())
	return Step{Chunks: chunks}
}

// TextChunk is one content delta.
func TextChunk(s string) Chunk {
	return Chunk{spec: &chunkSpec{delta: map[string]any{"content": s}}}
}

// ReasoningChunk is one reasoning delta in the given field:
// "reasoning_content" (DeepSeek, vLLM) or "reasoning" (Groq, OpenRouter).
func ReasoningChunk(s, field string) Chunk {
	if field == "" {
		field = "reasoning_content"
	}
	return Chunk{spec: &chunkSpec{delta: map[string]any{field: s}}}
}

// ToolCallChunks is a tool call at index: a first delta with id and name,
// then args cut into fragments deltas (on rune boundaries) carrying only the
// index and an argument piece.
func ToolCallChunks(index int, id, name, args string, fragments int) []Chunk {
	first := map[string]any{
		"index": index, "id": id, "type": "function",
		"function": map[string]any{"name": name, "arguments": ""},
	}
	out := []Chunk{{spec: &chunkSpec{delta: map[string]any{"tool_calls": []any{first}}, toolArgs: 0}}}
	for _, piece := range split(args, fragments) {
		d := map[string]any{"index": index, "function": map[string]any{"arguments": piece}}
		out = append(out, Chunk{spec: &chunkSpec{delta: map[string]any{"tool_calls": []any{d}}, toolArgs: len(piece)}})
	}
	return out
}

// UsageChunk is an OpenAI-style final usage chunk with empty choices.
func UsageChunk(u Usage) Chunk {
	return Chunk{spec: &chunkSpec{usage: &u, noChoices: true}}
}

// AutoUsageChunk is a usage chunk with figures estimated at four bytes a
// token: the prompt from the request body, the completion from the text,
// reasoning and arguments streamed before it in the same step.
func AutoUsageChunk() Chunk {
	return Chunk{autoUsage: true}
}

// FinishChunk is a chunk with an empty delta and the finish reason.
func FinishChunk(reason string) Chunk {
	return Chunk{spec: &chunkSpec{delta: map[string]any{}, finish: reason}}
}

// JSONChunk is an SSE event carrying payload verbatim ("data: payload").
func JSONChunk(payload string) Chunk {
	return Chunk{data: []byte("data: " + payload + "\n\n")}
}

// Comment is an SSE comment line such as ": OPENROUTER PROCESSING".
func Comment(text string) Chunk {
	return Chunk{data: []byte(": " + text + "\n\n")}
}

// Delay pauses the stream for d before the next chunk (ends early if the
// client goes away).
func Delay(d time.Duration) Chunk { return Chunk{delay: d} }

// Block pauses the stream until ch is closed or the client goes away, so a
// test can cancel mid-stream at a known point.
func Block(ch <-chan struct{}) Chunk { return Chunk{block: ch} }

// Disconnect drops the connection abruptly (the client sees an unexpected
// EOF or a reset), as a crashing proxy would.
func Disconnect() Chunk { return Chunk{abort: true} }

// HTTPError answers with status, headers and body (a JSON error body, an
// HTML page, anything).
func HTTPError(status int, headers map[string]string, body string) Step {
	return Step{Status: status, Header: headers, Body: body}
}

// CutShort streams chunks, then ends the response without a finish reason
// (unless given) and without "data: [DONE]".
func CutShort(chunks ...Chunk) Step { return Step{Chunks: chunks, NoDone: true} }

// Hang is a server that accepts the request and never answers.
func Hang() Step { return Step{Silent: true} }

// RawSSE replays a recorded SSE body verbatim.
func RawSSE(body string) Step { return Step{Raw: body} }

// textChunks cuts s into about three deltas at word boundaries.
func textChunks(s string) []Chunk {
	if s == "" {
		return nil
	}
	words := strings.SplitAfter(s, " ")
	per := max(1, (len(words)+2)/3)
	var out []Chunk
	for i := 0; i < len(words); i += per {
		out = append(out, TextChunk(strings.Join(words[i:min(i+per, len(words))], "")))
	}
	return out
}

// split cuts s into n pieces of similar size on rune boundaries; fewer when
// s is short. An empty s gives no pieces.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	n = max(1, min(n, utf8.RuneCountInString(s)))
	size := (len(s) + n - 1) / n
	var out []string
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

// chunkSpec is a chat.completion.chunk before the model name is known.
type chunkSpec struct {
	delta     map[string]any
	finish    string
	usage     *Usage
	noChoices bool
	toolArgs  int // bytes of tool arguments in delta, for AutoUsageChunk
}

// player renders the chunks of one step and keeps what AutoUsageChunk needs.
type player struct {
	req      *Request
	model    string
	outBytes int
}

func (p *player) render(c Chunk) []byte {
	if c.data != nil {
		return c.data
	}
	spec := c.spec
	if c.autoUsage {
		u := &Usage{Prompt: max(1, len(p.req.Body)/4), Completion: max(1, (p.outBytes+3)/4)}
		if c.prompt != nil {
			u.Prompt, u.Cached = c.prompt[0], c.prompt[1]
		}
		spec = &chunkSpec{usage: u, noChoices: true}
	}
	obj := map[string]any{
		"id":      "chatcmpl-providertest",
		"object":  "chat.completion.chunk",
		"created": 1700000000,
		"model":   p.model,
		"choices": []any{},
	}
	if !spec.noChoices {
		var finish any
		if spec.finish != "" {
			finish = spec.finish
		}
		obj["choices"] = []any{map[string]any{"index": 0, "delta": spec.delta, "finish_reason": finish}}
		for _, k := range []string{"content", "reasoning_content", "reasoning"} {
			if v, ok := spec.delta[k].(string); ok {
				p.outBytes += len(v)
			}
		}
		p.outBytes += spec.toolArgs
	}
	if u := spec.usage; u != nil {
		usage := map[string]any{
			"prompt_tokens":     u.Prompt,
			"completion_tokens": u.Completion,
			"total_tokens":      u.Prompt + u.Completion,
			"prompt_tokens_details": map[string]any{
				"cached_tokens": u.Cached,
			},
			"completion_tokens_details": map[string]any{
				"reasoning_tokens": u.Reasoning,
			},
		}
		obj["usage"] = usage
	}
	b, _ := json.Marshal(obj)
	out := make([]byte, 0, len(b)+8)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}
