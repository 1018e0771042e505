package config

import "testing"

// TestCatalogKnowsTodaysModels: the models of issue 29 are known with
// their vendors' figures — Gemini 3's 1M window, o3 and o4-mini taking
// images, Claude after 4.5 (and 3.7 Sonnet, Opus 4.1, in every spelling)
// with cache markers, GPT-5.x — and today's lookup rules still hold
// (a provider prefix, a dated id).
func TestCatalogKnowsTodaysModels(t *testing.T) {
	for _, tt := range []struct {
		name   string
		window int64
		vision bool
		cache  string
	}{
		{"gemini-3-pro-preview", 1048576, true, CacheAutomatic},
		{"google/gemini-3-pro-preview", 1048576, true, CacheAutomatic},
		{"o3", 200000, true, CacheAutomatic},
		{"o4-mini", 200000, true, CacheAutomatic},
		{"o4-mini-2025-04-16", 200000, true, CacheAutomatic},
		{"gpt-5.2", 400000, true, CacheAutomatic},
		{"gpt-5.5", 1050000, true, CacheAutomatic},
		{"openai/gpt-5.1", 400000, true, CacheAutomatic},
		{"claude-opus-4-1", 200000, true, CacheExplicit},
		{"claude-opus-4.1", 200000, true, CacheExplicit},
		{"anthropic/claude-opus-4.1", 200000, true, CacheExplicit},
		{"claude-opus-4-1-20250805", 200000, true, CacheExplicit},
		{"claude-3-7-sonnet-20250219", 200000, true, CacheExplicit},
		{"claude-3-7-sonnet-latest", 200000, true, CacheExplicit},
		{"claude-3.7-sonnet", 200000, true, CacheExplicit},
		{"claude-sonnet-4-6", 1000000, true, CacheExplicit},
		{"claude-opus-4-8", 1000000, true, CacheExplicit},
		{"gpt-4.1-2025-04-14", 1047576, true, CacheAutomatic},
		{"kimi-k2-thinking", 262144, false, CacheAutomatic},
		{"grok-4", 256000, true, CacheAutomatic}, // retired from the data, kept
	} {
		info, ok := lookupCatalog(tt.name)
		if !ok || info.ContextWindow != tt.window || info.Vision != tt.vision || info.Cache != tt.cache {
			t.Errorf("%s: known %v window %d vision %v cache %q; want %d %v %q", tt.name, ok, info.ContextWindow, info.Vision, info.Cache, tt.window, tt.vision, tt.cache)
		}
	}
	for _, name := range []string{"llama3.1", "qwen2.5-coder:7b", "my-model"} {
		if _, ok := lookupCatalog(name); ok {
			t.Errorf("%s: found in the catalog", name)
		}
	}
}
