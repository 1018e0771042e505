package provider

// Wire types of a chat-completions chunk, decoded leniently: servers send
// null where a string is expected, numbers as floats, arguments as objects,
// and fields go-openai's typed structs drop (reasoning, top-level error,
// top-level reasoning_tokens). Unknown fields are ignored.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// chunk is one streamed chat.completion.chunk, or a whole non-streamed
// chat.completion (whose choices carry message instead of delta), or an
// error object.
type chunk struct {
	Object  string     `json:"object"`
	Choices []choice   `json:"choices"`
	Usage   *usageWire `json:"usage"`
	// Error is set by OpenAI-, SGLang- and OpenRouter-style mid-stream
	// errors; Object is "error" in vLLM's.
	Error json.RawMessage `json:"error"`
	// Groq's older streams put usage only here.
	XGroq *struct {
		Usage *usageWire `json:"usage"`
	} `json:"x_groq"`
}

type choice struct {
	Index        int      `json:"index"`
	Delta        *delta   `json:"delta"`
	Message      *delta   `json:"message"`
	FinishReason flexText `json:"finish_reason"`
}

type delta struct {
	Content          content         `json:"content"`
	Refusal          flexText        `json:"refusal"`
	ReasoningContent flexText        `json:"reasoning_content"`
	Reasoning        flexText        `json:"reasoning"`
	ReasoningDetails *reasoningParts `json:"reasoning_details"`
	ToolCalls        []toolCallWire  `json:"tool_calls"`
	// ExtraContent is Gemini's signature on a text part (echo.go). It
	// and ReasoningDetails are pointers: most deltas have neither, and
	// every delta is allocated.
	ExtraContent *json.RawMessage `json:"extra_content"`
}

type toolCallWire struct {
	Index    *int     `json:"index"`
	ID       flexText `json:"id"`
	Function struct {
		Name      flexText `json:"name"`
		Arguments rawText  `json:"arguments"`
	} `json:"function"`
	// ExtraContent is Gemini's thought signature of the call (echo.go).
	ExtraContent *json.RawMessage `json:"extra_content"`
}

type usageWire struct {
	PromptTokens        count `json:"prompt_tokens"`
	CompletionTokens    count `json:"completion_tokens"`
	TotalTokens         count `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     count `json:"cached_tokens"`
		CacheWriteTokens count `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens count `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// Azure-hosted DeepSeek reports reasoning at the top level.
	ReasoningTokens count `json:"reasoning_tokens"`
	// DeepSeek's own name for cached prompt tokens.
	PromptCacheHitTokens count `json:"prompt_cache_hit_tokens"`
	// Anthropic's names, which some gateways pass through: these count
	// apart from the prompt tokens at Anthropic, inside them at OpenAI.
	CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     count `json:"cache_read_input_tokens"`
	// OpenRouter's cost of the call in USD (credits). With the user's own
	// provider key (is_byok) it is OpenRouter's fee, and the provider's
	// charge is cost_details.upstream_inference_cost. A proxy that sends
	// an object here sends no figure we can use.
	Cost        json.RawMessage `json:"cost"`
	IsBYOK      bool            `json:"is_byok"`
	CostDetails *struct {
		UpstreamInferenceCost json.RawMessage `json:"upstream_inference_cost"`
	} `json:"cost_details"`
}

// reportedCost is the call's cost in USD as the provider reported it, 0
// when it did not.
func (w *usageWire) reportedCost() float64 {
	c := usdOf(w.Cost)
	if w.IsBYOK && w.CostDetails != nil {
		c += usdOf(w.CostDetails.UpstreamInferenceCost)
	}
	return c
}

// usdOf is a JSON number as a cost, 0 for anything else.
func usdOf(b json.RawMessage) float64 {
	var f float64
	if json.Unmarshal(b, &f) != nil || f < 0 {
		return 0
	}
	return f
}

// normalise returns usage with Input including cached tokens and Output
// including reasoning tokens.
//
// Most servers count reasoning inside completion_tokens; xAI does not, and
// its total_tokens is then prompt + completion + reasoning, which is how it
// is recognised. OpenAI-style prompt_tokens include cached tokens; a cached
// count larger than the prompt means the server counted them apart.
func (w *usageWire) normalise() Usage {
	u := Usage{
		Input:  int64(w.PromptTokens),
		Output: int64(w.CompletionTokens),
	}
	if d := w.PromptTokensDetails; d != nil {
		u.CachedInput = int64(d.CachedTokens)
		u.CacheWrite = int64(d.CacheWriteTokens)
	}
	if u.CachedInput == 0 {
		u.CachedInput = int64(w.PromptCacheHitTokens)
	}
	if u.CachedInput == 0 {
		u.CachedInput = int64(w.CacheReadInputTokens)
	}
	if u.CacheWrite == 0 {
		u.CacheWrite = int64(w.CacheCreationInputTokens)
	}
	u.ReportedCostUSD = w.reportedCost()
	if d := w.CompletionTokensDetails; d != nil {
		u.Reasoning = int64(d.ReasoningTokens)
	}
	if u.Reasoning == 0 {
		u.Reasoning = int64(w.ReasoningTokens)
	}
	if u.Reasoning > 0 && int64(w.TotalTokens) == u.Input+u.Output+u.Reasoning {
		u.Output += u.Reasoning
	}
	if u.CachedInput+u.CacheWrite > u.Input {
		// Counted apart from the prompt, as Anthropic does.
		u.Input += u.CachedInput + u.CacheWrite
	}
	return u
}

// content is delta.content (or message.content). It is usually a string,
// kept in text. Mistral's Magistral sends an array of typed parts instead:
// {"type":"text","text":…} and {"type":"thinking","thinking":[{"type":
// "text","text":…}]}, the thinking being reasoning; they are kept in parts,
// in stream order. Parts of other types (images, references) carry no text
// and are skipped.
type content struct {
	text  string
	parts []contentPart
}

type contentPart struct {
	text      string
	reasoning bool
}

// each calls fn for every non-empty piece, in order.
func (c *content) each(fn func(text string, reasoning bool)) {
	if c.text != "" {
		fn(c.text, false)
	}
	for _, p := range c.parts {
		if p.text != "" {
			fn(p.text, p.reasoning)
		}
	}
}

func (c *content) UnmarshalJSON(b []byte) error {
	*c = content{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		var t flexText
		_ = t.UnmarshalJSON(b)
		c.text = string(t)
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     flexText        `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(b, &parts) != nil {
		return nil // not parts we know: no text
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.parts = append(c.parts, contentPart{text: string(p.Text)})
		case "thinking":
			var inner content
			_ = inner.UnmarshalJSON(p.Thinking)
			inner.each(func(text string, _ bool) {
				c.parts = append(c.parts, contentPart{text: text, reasoning: true})
			})
		}
	}
	return nil
}

// reasoningParts is delta.reasoning_details, OpenRouter's structured
// reasoning (also Snowflake Cortex's only reasoning field): an array of
// {"type":"reasoning.text","text"}, {"type":"reasoning.summary","summary"}
// and {"type":"reasoning.encrypted","data"}. Its text is the readable
// text of the first two; raw is the whole field as sent, which goes back
// to the server (echo.go).
type reasoningParts struct {
	text string
	raw  json.RawMessage
}

func (r *reasoningParts) UnmarshalJSON(b []byte) error {
	*r = reasoningParts{raw: b}
	var parts []struct {
		Type    string   `json:"type"`
		Text    flexText `json:"text"`
		Summary flexText `json:"summary"`
	}
	if json.Unmarshal(b, &parts) != nil {
		return nil
	}
	var out strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "reasoning.text":
			out.WriteString(string(p.Text))
		case "reasoning.summary":
			out.WriteString(string(p.Summary))
		}
	}
	r.text = out.String()
	return nil
}

// flexText decodes a JSON string; null and any other type decode as "".
type flexText string

func (t *flexText) UnmarshalJSON(b []byte) error {
	if n := len(b); n >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		// No escapes: the text is between the quotes (the common case).
		*t = flexText(b[1 : n-1])
		return nil
	}
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*t = flexText(s)
		return nil
	}
	// Numbers are kept as text: error codes are sometimes numeric.
	if len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		*t = flexText(b)
		return nil
	}
	*t = ""
	return nil
}

// rawText decodes a JSON string as its value, null as "", and anything else
// (some servers send tool arguments as an object) as its JSON text.
type rawText string

func (t *rawText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*t = ""
	case b[0] == '"' && len(b) >= 2 && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b):
		*t = rawText(b[1 : len(b)-1])
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = rawText(s)
	default:
		*t = rawText(b)
	}
	return nil
}

// count decodes a token count given as an integer, a float, a numeric
// string or null.
type count int64

func (c *count) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(bytes.TrimSpace(b), `"`)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		*c = 0
		return nil
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*c = count(n)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		*c = 0
		return nil
	}
	*c = count(f)
	return nil
}

// apiError is an error reported by the server, in any of the shapes seen:
// {"error":{"message","type","code","metadata":{"raw"}}} (OpenAI,
// OpenRouter, llama.cpp), {"error":"text"} (Ollama), {"object":"error",
// "message",...} (vLLM), {"message",...}, {"detail":...} (FastAPI), and a
// one-element array of any of these (Gemini).
type apiError struct {
	Message string
	Type    string
	Code    string
}

// parseAPIError reads an error body or chunk; ok is false when b holds no
// recognisable error.
func parseAPIError(b []byte) (apiError, bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil || len(list) == 0 {
			return apiError{}, false
		}
		b = list[0]
	}
	var env struct {
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
		Message json.RawMessage `json:"message"`
		Type    flexText        `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &env) != nil {
		return apiError{}, false
	}
	if e := bytes.TrimSpace(env.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		if e[0] == '"' {
			var s string
			_ = json.Unmarshal(e, &s)
			return apiError{Message: s, Type: string(env.Type), Code: messageText(env.Code)}, true
		}
		var obj struct {
			Message  json.RawMessage `json:"message"`
			Type     flexText        `json:"type"`
			Code     json.RawMessage `json:"code"`
			Status   flexText        `json:"status"`
			Metadata struct {
				Raw json.RawMessage `json:"raw"`
			} `json:"metadata"`
		}
		if json.Unmarshal(e, &obj) != nil {
			return apiError{Message: string(e)}, true
		}
		ae := apiError{Message: messageText(obj.Message), Type: string(obj.Type), Code: messageText(obj.Code)}
		if ae.Type == "" {
			ae.Type = string(obj.Status)
		}
		// OpenRouter puts the upstream provider's words in metadata.raw.
		if raw := messageText(obj.Metadata.Raw); raw != "" && raw != ae.Message {
			if ae.Message == "" {
				ae.Message = raw
			} else {
				ae.Message += ": " + raw
			}
		}
		return ae, true
	}
	msg := messageText(env.Message)
	if msg == "" {
		msg = detailText(env.Detail)
	}
	if msg == "" && env.Object != "error" {
		return apiError{}, false
	}
	return apiError{Message: msg, Type: string(env.Type), Code: messageText(env.Code)}, true
}

// messageText reads a message (or an error code) given as a string, a list
// of strings (go-openai issue 381), or any other JSON (kept as text).
func messageText(b json.RawMessage) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(b, &list) == nil {
		return joinNonEmpty(list, ", ")
	}
	return string(b)
}

// detailText reads FastAPI's {"detail": ...}: a string, or a list of
// validation errors {"loc": [...], "msg": "..."}.
func detailText(b json.RawMessage) string {
	var list []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(b, &list) != nil || len(list) == 0 {
		return messageText(b)
	}
	parts := make([]string, 0, len(list))
	for _, d := range list {
		loc := make([]string, 0, len(d.Loc))
		for _, l := range d.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		if len(loc) > 0 {
			parts = append(parts, strings.Join(loc, ".")+": "+d.Msg)
		} else {
			parts = append(parts, d.Msg)
		}
	}
	return strings.Join(parts, "; ")
}

func joinNonEmpty(list []string, sep string) string {
	var out []byte
	for _, s := range list {
		if s == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, sep...)
		}
		out = append(out, s...)
	}
	return string(out)
}
