package config

import (
	"sort"
	"strings"
)

// Price is a model's price in US dollars per million tokens. CacheRead
// prices input tokens read from the provider's prompt cache, CacheWrite
// those written to it; a CacheWrite of 0 means writes cost the input
// price (OpenAI, DeepSeek and Gemini's implicit caching charge nothing
// more; Anthropic charges 1.25 times the input for five-minute writes).
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Known reports whether the model has a price (config or catalog): the
// cost of a model without one is unknown, not zero, and a spending cap
// cannot be held against it.
func (p Price) Known() bool { return p.Input > 0 || p.Output > 0 }

// ModelInfo is what the agent needs to know of a model: its limits, its
// price and whether its reasoning text is sent back to it.
type ModelInfo struct {
	ContextWindow int64 `json:"context_window"`
	MaxOutput     int64 `json:"max_output"`
	// InputLimit caps a request's input tokens where the provider
	// publishes a cap below the window (gpt-5: a 400K window, 272K of
	// input); 0 means none beyond the window.
	InputLimit         int64 `json:"input_limit"`
	Price              Price `json:"price"`
	ReasoningRoundtrip bool  `json:"reasoning_roundtrip"`
	// Vision says the model takes images (image_url content parts);
	// images are refused, before anything is sent, for a model without it.
	Vision bool `json:"vision"`
	// Cache is how the provider caches a request's prefix: CacheAutomatic
	// (OpenAI, DeepSeek, Gemini: nothing to send), CacheExplicit
	// (Anthropic's models: cache_control breakpoints on content parts) or
	// CacheNone; "" when unknown, which sends no breakpoints.
	Cache string `json:"cache,omitempty"`
	// NoTools says the model is sent no tools (config tools: false): its
	// server refuses them, and the agent can only chat with it.
	NoTools bool `json:"-"`
	// TrustUsage (config trust_usage, the user's file only) anchors the
	// token calculator on every usage the provider reports, even one far
	// from our own count of the request (tokens.SuspectReport): for a
	// provider whose token counts honestly differ from the estimator's by
	// more than twice.
	TrustUsage bool `json:"trust_usage,omitempty"`
}

// Cache styles of ModelInfo.Cache (config models.NAME.cache).
const (
	CacheAutomatic = "automatic"
	CacheExplicit  = "explicit"
	CacheNone      = "none"
)

// Default limits for a model neither the catalog nor the config knows. They
// are deliberately small so that compaction starts early rather than the
// provider failing with a context-length error.
const (
	UnknownContextWindow = 32768
	UnknownMaxOutput     = 4096
)

// catalog holds widely used models. Figures are the providers' published
// limits and list prices per million tokens, as of 2026. InputLimit is set
// only where the provider publishes an input cap below the window. Vision
// is set for the models whose providers accept image inputs through the
// chat completions API (OpenAI's gpt-4o, gpt-4.1 and gpt-5 families,
// Anthropic's Claude and Google's Gemini models).
var catalog = map[string]ModelInfo{
	// OpenAI model pages and platform.openai.com/docs/pricing. The gpt-5
	// family's 400K window is 272K of input plus 128K of output.
	"gpt-4.1":      {ContextWindow: 1047576, MaxOutput: 32768, Price: Price{2.00, 8.00, 0.50, 0}, Vision: true},
	"gpt-4.1-mini": {ContextWindow: 1047576, MaxOutput: 32768, Price: Price{0.40, 1.60, 0.10, 0}, Vision: true},
	"gpt-4.1-nano": {ContextWindow: 1047576, MaxOutput: 32768, Price: Price{0.10, 0.40, 0.025, 0}, Vision: true},
	"gpt-4o":       {ContextWindow: 128000, MaxOutput: 16384, Price: Price{2.50, 10.00, 1.25, 0}, Vision: true},
	"gpt-4o-mini":  {ContextWindow: 128000, MaxOutput: 16384, Price: Price{0.15, 0.60, 0.075, 0}, Vision: true},
	"gpt-5":        {ContextWindow: 400000, MaxOutput: 128000, InputLimit: 272000, Price: Price{1.25, 10.00, 0.125, 0}, Vision: true},
	"gpt-5-mini":   {ContextWindow: 400000, MaxOutput: 128000, InputLimit: 272000, Price: Price{0.25, 2.00, 0.025, 0}, Vision: true},
	"gpt-5-nano":   {ContextWindow: 400000, MaxOutput: 128000, InputLimit: 272000, Price: Price{0.05, 0.40, 0.005, 0}, Vision: true},
	"o3":           {ContextWindow: 200000, MaxOutput: 100000, Price: Price{2.00, 8.00, 0.50, 0}},
	"o4-mini":      {ContextWindow: 200000, MaxOutput: 100000, Price: Price{1.10, 4.40, 0.275, 0}},

	// DeepSeek API docs (api-docs.deepseek.com, models & pricing, V3.2).
	// deepseek-reasoner's reasoning_content must not be sent back.
	"deepseek-chat":     {ContextWindow: 128000, MaxOutput: 8192, Price: Price{0.28, 0.42, 0.028, 0}},
	"deepseek-reasoner": {ContextWindow: 128000, MaxOutput: 65536, Price: Price{0.28, 0.42, 0.028, 0}},

	// Anthropic models through OpenRouter (openrouter.ai/anthropic/…);
	// cache writes (five-minute) at 1.25 times the input price
	// (docs.anthropic.com, prompt caching pricing). Their prefix is cached
	// only up to cache_control breakpoints, which OpenRouter takes on
	// content parts, at most four a request (openrouter.ai/docs, prompt
	// caching); every other provider here caches prefixes automatically.
	"claude-sonnet-4":   {ContextWindow: 200000, MaxOutput: 64000, Price: Price{3.00, 15.00, 0.30, 3.75}, Vision: true, Cache: CacheExplicit},
	"claude-sonnet-4.5": {ContextWindow: 200000, MaxOutput: 64000, Price: Price{3.00, 15.00, 0.30, 3.75}, Vision: true, Cache: CacheExplicit},
	"claude-haiku-4.5":  {ContextWindow: 200000, MaxOutput: 64000, Price: Price{1.00, 5.00, 0.10, 1.25}, Vision: true, Cache: CacheExplicit},

	// Google AI for Developers, Gemini models and pricing (≤200K prompts).
	"gemini-2.5-pro":   {ContextWindow: 1048576, MaxOutput: 65536, Price: Price{1.25, 10.00, 0.31, 0}, Vision: true},
	"gemini-2.5-flash": {ContextWindow: 1048576, MaxOutput: 65536, Price: Price{0.30, 2.50, 0.075, 0}, Vision: true},

	// Groq model pages (console.groq.com/docs/models).
	"llama-3.3-70b-versatile": {ContextWindow: 131072, MaxOutput: 32768, Price: Price{0.59, 0.79, 0, 0}},
	"qwen3-32b":               {ContextWindow: 131072, MaxOutput: 40960, Price: Price{0.29, 0.59, 0, 0}},

	// Moonshot, Z.ai and xAI platform docs.
	"kimi-k2-0905": {ContextWindow: 262144, MaxOutput: 16384, Price: Price{0.60, 2.50, 0.15, 0}},
	"kimi-k2":      {ContextWindow: 131072, MaxOutput: 16384, Price: Price{0.60, 2.50, 0.15, 0}},
	"glm-4.6":      {ContextWindow: 200000, MaxOutput: 128000, Price: Price{0.60, 2.20, 0.11, 0}},
	"grok-3-mini":  {ContextWindow: 131072, MaxOutput: 16384, Price: Price{0.30, 0.50, 0.075, 0}},
	"grok-4":       {ContextWindow: 256000, MaxOutput: 16384, Price: Price{3.00, 15.00, 0.75, 0}},
}

func init() {
	for name, info := range catalog {
		if info.Cache == "" {
			info.Cache = CacheAutomatic
			catalog[name] = info
		}
	}
}

// Source says where a catalog entry's figures come from and when they
// were read (`agent models`).
type Source struct {
	Source string `json:"source"`
	AsOf   string `json:"as_of"`
}

// catalogSources gives the source of each catalog entry, one per provider
// family, as the comments on catalog record them.
var catalogSources = []struct {
	Source
	models []string
}{
	{Source{"platform.openai.com/docs/pricing, model pages", "2026"},
		[]string{"gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o", "gpt-4o-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano", "o3", "o4-mini"}},
	{Source{"api-docs.deepseek.com pricing (V3.2)", "2026"},
		[]string{"deepseek-chat", "deepseek-reasoner"}},
	{Source{"openrouter.ai/anthropic, docs.anthropic.com prompt caching", "2026"},
		[]string{"claude-sonnet-4", "claude-sonnet-4.5", "claude-haiku-4.5"}},
	{Source{"Google AI for Developers pricing (≤200K prompts)", "2026"},
		[]string{"gemini-2.5-pro", "gemini-2.5-flash"}},
	{Source{"console.groq.com/docs/models", "2026"},
		[]string{"llama-3.3-70b-versatile", "qwen3-32b"}},
	{Source{"Moonshot platform docs", "2026"}, []string{"kimi-k2-0905", "kimi-k2"}},
	{Source{"Z.ai platform docs", "2026"}, []string{"glm-4.6"}},
	{Source{"xAI platform docs", "2026"}, []string{"grok-3-mini", "grok-4"}},
}

// CatalogEntry returns the catalog's entry for a model (found as
// lookupCatalog finds it) and the source of its figures; ok is false when
// the catalog does not know the model.
func CatalogEntry(name string) (info ModelInfo, src Source, ok bool) {
	key, ok := catalogName(name)
	if !ok {
		return ModelInfo{}, Source{}, false
	}
	for _, s := range catalogSources {
		for _, m := range s.models {
			if m == key {
				src = s.Source
			}
		}
	}
	return catalog[key], src, true
}

// lookupCatalog finds a model in the catalog: by exact name, without a
// provider prefix ("openai/gpt-4.1"), or by the longest catalog name the
// model starts with ("gpt-4.1-2025-04-14" is gpt-4.1).
func lookupCatalog(name string) (ModelInfo, bool) {
	key, ok := catalogName(name)
	return catalog[key], ok
}

// catalogName is the catalog's name for a model (see lookupCatalog).
func catalogName(name string) (string, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if _, ok := catalog[name]; ok {
		return name, true
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
		if _, ok := catalog[name]; ok {
			return name, true
		}
	}
	best := ""
	for known := range catalog {
		if strings.HasPrefix(name, known+"-") && len(known) > len(best) {
			best = known
		}
	}
	return best, best != ""
}

// CatalogModels returns the names of the models the built-in catalog
// knows, sorted.
func CatalogModels() []string {
	names := make([]string, 0, len(catalog))
	for name := range catalog {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
