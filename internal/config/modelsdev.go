package config

// The models.dev data set (github.com/anomalyco/models.dev, MIT) read into
// catalog rows. Both the generator of the embedded catalog (build/catalog)
// and `agent models --refresh` go through CatalogFromModelsDev, so the
// embedded copy and a refreshed one are made by the same rules:
//
//   - only the providers of catalogProviders are read, in their order; a
//     model id two providers share keeps the first one's figures (the
//     vendor's own, before a host's);
//   - a "vendor/model" id (OpenRouter's, Together's) also answers to its
//     last segment ("claude-opus-4.1"), and a dated id to its name without
//     the date ("claude-3-7-sonnet"), when no provider has that id;
//   - a model that does not answer in text, or has no context window, is
//     left out;
//   - the family rules (familyRules) fill what the data set does not say;
//   - the models of retiredModels, which the agent knew before the data
//     set dropped them, keep their figures unless the data has them again.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// CatalogRow is one model of the catalog: its id as users type it
// (lower-case), its figures and the models.dev provider they come from.
type CatalogRow struct {
	Name     string
	Provider string
	Info     ModelInfo
}

// retiredModels are the models the agent's hand-kept catalog knew that
// models.dev no longer lists (xAI's page, 2026): users still type them.
var retiredModels = []CatalogRow{
	{"grok-3-mini", "xai (retired)", ModelInfo{ContextWindow: 131072, MaxOutput: 16384, Price: Price{0.30, 0.50, 0.075, 0}, Reasoning: true, Cache: CacheAutomatic}},
	{"grok-4", "xai (retired)", ModelInfo{ContextWindow: 256000, MaxOutput: 16384, Price: Price{3.00, 15.00, 0.75, 0}, Vision: true, Reasoning: true, Cache: CacheAutomatic}},
}

// catalogProviders are the models.dev providers whose model ids users type
// against OpenAI-compatible endpoints, the vendors before the hosts and
// routers so that a shared id keeps the vendor's figures.
var catalogProviders = []string{
	"openai", "anthropic", "google", "deepseek", "moonshotai", "xai", "mistral",
	"zai", "alibaba", "minimax", "groq", "cerebras", "perplexity",
	"togetherai", "fireworks-ai", "openrouter",
}

// modelsDevModel is the part of a models.dev model (api.json) the agent
// reads. Fields of other shapes are ignored.
type modelsDevModel struct {
	ID               string            `json:"id"`
	Reasoning        bool              `json:"reasoning"`
	ReasoningOptions []json.RawMessage `json:"reasoning_options"`
	ToolCall         *bool             `json:"tool_call"`
	Interleaved      json.RawMessage   `json:"interleaved"`
	Cost             struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cache_read"`
		CacheWrite float64 `json:"cache_write"`
	} `json:"cost"`
	Limit struct {
		Context int64 `json:"context"`
		Input   int64 `json:"input"`
		Output  int64 `json:"output"`
	} `json:"limit"`
	Modalities struct {
		Input  []string `json:"input"`
		Output []string `json:"output"`
	} `json:"modalities"`
}

// CatalogFromModelsDev reads models.dev's api.json (provider id →
// {models: {id → model}}) into catalog rows sorted by name. It fails on
// data that is not of that shape, or that holds none of the catalog's
// providers: a refresh must not replace a good catalog with an empty one.
func CatalogFromModelsDev(data []byte) ([]CatalogRow, error) {
	var providers map[string]json.RawMessage
	if err := json.Unmarshal(data, &providers); err != nil {
		return nil, fmt.Errorf("models.dev data: %w", err)
	}
	seen := map[string]bool{}
	var rows []CatalogRow
	found := 0
	for _, pid := range catalogProviders {
		raw, ok := providers[pid]
		if !ok {
			continue
		}
		found++
		var p struct {
			Models map[string]modelsDevModel `json:"models"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("models.dev data: provider %s: %w", pid, err)
		}
		ids := make([]string, 0, len(p.Models))
		for id := range p.Models {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			m := p.Models[id]
			name := strings.ToLower(strings.TrimSpace(id))
			if name == "" || seen[name] || !m.chat() {
				continue
			}
			info, err := m.info()
			if err != nil {
				return nil, fmt.Errorf("models.dev data: %s model %s: %w", pid, id, err)
			}
			familyRules(name, &info)
			seen[name] = true
			rows = append(rows, CatalogRow{Name: name, Provider: pid, Info: info})
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("models.dev data: none of the providers %s", strings.Join(catalogProviders, ", "))
	}
	if len(rows) == 0 {
		return nil, errors.New("models.dev data: no chat model with a context window")
	}
	for _, r := range retiredModels {
		if !seen[r.Name] {
			seen[r.Name] = true
			rows = append(rows, r)
		}
	}
	for _, r := range slices.Clone(rows) {
		for _, alias := range aliases(r.Name) {
			if !seen[alias] {
				seen[alias] = true
				rows = append(rows, CatalogRow{Name: alias, Provider: r.Provider, Info: r.Info})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	return rows, nil
}

// aliases are the other names a model answers to: a "vendor/model" id's
// last segment, and a dated id ("claude-3-7-sonnet-20250219") without its
// date.
func aliases(name string) []string {
	var out []string
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
		out = append(out, name)
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 && isDate(name[i+1:]) {
		out = append(out, name[:i])
	}
	return out
}

// isDate reports whether s is a YYYYMMDD date of this century.
func isDate(s string) bool {
	if len(s) != 8 || !strings.HasPrefix(s, "20") {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// chat reports whether the model answers in text with a known window.
func (m modelsDevModel) chat() bool {
	if m.Limit.Context <= 0 {
		return false
	}
	return len(m.Modalities.Output) == 0 || slices.Contains(m.Modalities.Output, "text")
}

func (m modelsDevModel) info() (ModelInfo, error) {
	info := ModelInfo{
		ContextWindow: m.Limit.Context,
		MaxOutput:     m.Limit.Output,
		Price:         Price{m.Cost.Input, m.Cost.Output, m.Cost.CacheRead, m.Cost.CacheWrite},
		Vision:        slices.Contains(m.Modalities.Input, "image"),
		NoTools:       m.ToolCall != nil && !*m.ToolCall,
		Reasoning:     m.Reasoning,
	}
	if m.Limit.Input > 0 && m.Limit.Input < m.Limit.Context {
		info.InputLimit = m.Limit.Input
	}
	for _, raw := range m.ReasoningOptions {
		var o struct {
			Type   string    `json:"type"`
			Values []*string `json:"values"`
		}
		if json.Unmarshal(raw, &o) != nil || o.Type != "effort" {
			continue
		}
		var levels []string
		for _, v := range o.Values {
			if v != nil && effortIndex(*v) >= 0 {
				levels = append(levels, *v)
			}
		}
		e, _ := ParseEfforts(levels)
		info.Efforts |= e
	}
	switch raw := bytes.TrimSpace(m.Interleaved); {
	case len(raw) == 0, string(raw) == "null", string(raw) == "false":
	case string(raw) == "true":
		info.Interleaved = InterleavedUnnamed
	default:
		var f struct {
			Field string `json:"field"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.Field == "" {
			return ModelInfo{}, fmt.Errorf("interleaved %s: want true or {\"field\": NAME}", raw)
		}
		info.Interleaved = f.Field
	}
	return info, nil
}

// CatalogProviders are the models.dev providers the catalog is made of, in
// the order in which a shared model id is settled.
func CatalogProviders() []string { return slices.Clone(catalogProviders) }
