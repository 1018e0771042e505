package provider

// Reasoning effort on the wire. Request.Effort is one word (minimal, low,
// medium, high, …); each family of servers takes it in its own dialect,
// and effortDialects — the one table of them — names the dialect by the
// base URL's host. A host no row names (a local llama.cpp, vLLM, Ollama
// or LM Studio server, or any other OpenAI-compatible one) gets OpenAI's
// reasoning_effort: a server that does not know the field ignores it, and
// one that does (vLLM, llama.cpp, Ollama for gpt-oss) must receive it.
//
// Which models take which levels is not decided here: the loop sends an
// effort only to a model the catalog does not say takes none
// (config.EffortRule). The effort is a request parameter, never message
// text, so a changed effort leaves the messages' bytes as they were; a
// change between two requests is a boundary the user made.

import (
	"encoding/json"
	"net/url"
	"strings"
)

// effortDialect is how a family's server takes the effort.
type effortDialect int

const (
	// effortOpenAI: "reasoning_effort": "high" (OpenAI, Gemini's and
	// Groq's OpenAI compatibility, xAI, DeepSeek, Fireworks, Together,
	// local servers).
	effortOpenAI effortDialect = iota
	// effortOpenRouter: "reasoning": {"effort": "high"}, which OpenRouter
	// translates for every model it routes to (a budget for Anthropic's
	// and Gemini's).
	effortOpenRouter
	// effortAnthropic: Anthropic's OpenAI-compatible endpoint ignores
	// reasoning_effort; it takes "thinking": {"type": "enabled",
	// "budget_tokens": N}, N below max_tokens (anthropicBudgets).
	effortAnthropic
)

// effortDialects names each family's dialect by its API host (the host
// or a subdomain of it). Families absent here speak effortOpenAI.
var effortDialects = []struct {
	family, host string
	dialect      effortDialect
}{
	{"OpenAI", "api.openai.com", effortOpenAI},
	{"Gemini (OpenAI compatibility)", "generativelanguage.googleapis.com", effortOpenAI},
	{"xAI", "api.x.ai", effortOpenAI},
	{"Groq", "api.groq.com", effortOpenAI},
	{"DeepSeek", "api.deepseek.com", effortOpenAI},
	{"Fireworks", "api.fireworks.ai", effortOpenAI},
	{"Together", "api.together.xyz", effortOpenAI},
	{"OpenRouter", "openrouter.ai", effortOpenRouter},
	{"Anthropic (OpenAI compatibility)", "api.anthropic.com", effortAnthropic},
}

// effortDialectOf is the dialect of the server at baseURL.
func effortDialectOf(baseURL string) effortDialect {
	u, err := url.Parse(baseURL)
	if err != nil {
		return effortOpenAI
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range effortDialects {
		if host == d.host || strings.HasSuffix(host, "."+d.host) {
			return d.dialect
		}
	}
	return effortOpenAI
}

// topLevel is the reasoning_effort field's value: the effort in the
// OpenAI dialect, "" in the others.
func (d effortDialect) topLevel(effort string) string {
	if d == effortOpenAI {
		return effort
	}
	return ""
}

// anthropicBudgets are the thinking budgets (tokens) standing for each
// level on Anthropic's endpoint; "none" turns thinking off.
var anthropicBudgets = map[string]int{
	"minimal": 1024, "low": 4096, "medium": 16384, "high": 32768, "xhigh": 49152, "max": 63999,
}

// fields are the body's extra top-level fields carrying effort in
// dialect d (nil when none): maxTokens is the request's output cap, which
// Anthropic's thinking budget must stay under.
func (d effortDialect) fields(effort string, maxTokens int) []byte {
	if effort == "" {
		return nil
	}
	var v any
	switch d {
	case effortOpenRouter:
		v = map[string]any{"reasoning": map[string]string{"effort": effort}}
	case effortAnthropic:
		budget, ok := anthropicBudgets[effort]
		switch {
		case effort == "none":
			v = map[string]any{"thinking": map[string]string{"type": "disabled"}}
		case !ok:
			return nil
		default:
			if maxTokens > 0 && budget >= maxTokens {
				budget = maxTokens - 1
			}
			if budget < 1024 { // Anthropic's least budget: no room to think
				return nil
			}
			v = map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}}
		}
	default:
		return nil
	}
	b, _ := json.Marshal(v)
	return b[1 : len(b)-1] // the fields, without the braces
}

// withFields is b with fields (`"k":v,…`, may be empty) added as the last
// top-level fields of the body.
func (b requestBody) withFields(fields []byte) requestBody {
	if len(fields) == 0 {
		return b
	}
	last := &b.tail
	if len(b.tail) == 0 {
		last = &b.head
	}
	s := *last // ends with the body's '}'; may be shared: copy
	n := make([]byte, 0, len(s)+len(fields)+1)
	n = append(append(append(n, s[:len(s)-1]...), ','), fields...)
	*last = append(n, '}')
	b.size += len(fields) + 1
	return b
}
