package config

// The model catalog: what the agent knows of models no config describes.
// Its rows come from the models.dev data set, generated into
// catalog_gen.go by build/catalog (embedded, dated ModelsDevDate) or
// fetched by `agent models --refresh` into the data directory, whose copy
// Load puts in force (UseCatalogFile). Rows are sorted by name and looked
// up by binary search: nothing is built at start-up.

import (
	"sort"
	"strings"
	"sync/atomic"
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
	// VisionUnknown says nothing (catalog or config) tells whether the
	// model takes images: they are sent, and the server's refusal is the
	// answer. A catalog row or a config vision setting makes Vision
	// authoritative.
	VisionUnknown bool `json:"vision_unknown,omitempty"`
	// Reasoning says the model reasons (models.dev reasoning).
	Reasoning bool `json:"reasoning,omitempty"`
	// Efforts are the reasoning-effort levels the model takes (models.dev
	// reasoning_options of type "effort"); none for a model that takes no
	// effort or whose levels are unknown.
	Efforts Efforts `json:"efforts,omitempty"`
	// Interleaved names the field in which the model's reasoning travels
	// between tool steps (models.dev interleaved: "reasoning_content" or
	// "reasoning_details"; InterleavedUnnamed when the data says only that
	// it does); "" when the data says nothing.
	Interleaved string `json:"interleaved,omitempty"`
	// Effort is the reasoning effort chosen for the model (config
	// models.NAME.effort, user file only; effort.go); "" sends none.
	Effort string `json:"effort,omitempty"`
}

// SendsImages reports whether images may be sent to the model: it takes
// them, or nothing says it does not.
func (m ModelInfo) SendsImages() bool { return m.Vision || m.VisionUnknown }

// InterleavedUnnamed is ModelInfo.Interleaved for a model whose data says
// its reasoning is interleaved without naming the field.
const InterleavedUnnamed = "unnamed"

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

// familyRules fill what the data set does not say, by the model's name:
// Anthropic's models (any name with "claude", whoever serves them) are
// cached only up to cache_control breakpoints, which OpenRouter and
// Anthropic's compatible endpoint take on content parts; every other
// catalog model's provider caches prefixes by itself.
func familyRules(name string, info *ModelInfo) {
	switch {
	case strings.Contains(strings.ToLower(name), "claude"):
		info.Cache = CacheExplicit
	case info.Cache == "":
		info.Cache = CacheAutomatic
	}
}

// unknownModel is what the agent assumes of a model the catalog does not
// know, before any config: its vision unknown (images are sent), and the
// family's cache style if the name says one ("" otherwise: no breakpoints).
func unknownModel(name string) ModelInfo {
	info := ModelInfo{VisionUnknown: true}
	if strings.Contains(strings.ToLower(name), "claude") {
		info.Cache = CacheExplicit
	}
	return info
}

// Source says where a catalog entry's figures come from and when they
// were read (`agent models`).
type Source struct {
	Source string `json:"source"`
	AsOf   string `json:"as_of"`
}

// catalogTable is a catalog in force: rows sorted by name, where they
// come from, and their date.
type catalogTable struct {
	rows []CatalogRow
	// origin is "embedded" or the cached file's path; url the data's.
	origin, url, asOf string
}

// embeddedCatalog is the catalog built into the binary.
var embeddedCatalog = catalogTable{rows: catalogRows[:], origin: "embedded", url: ModelsDevSource, asOf: ModelsDevDate}

// activeCatalog is the catalog in force, the embedded one until Load puts
// a cached file in force.
var activeCatalog atomic.Pointer[catalogTable]

func current() *catalogTable {
	if t := activeCatalog.Load(); t != nil {
		return t
	}
	return &embeddedCatalog
}

// CatalogInfo says which catalog is in force: Origin is "embedded" or the
// cached file's path, URL where its data came from, AsOf the data's date.
type CatalogInfo struct {
	Origin string `json:"origin"`
	URL    string `json:"url"`
	AsOf   string `json:"as_of"`
	Models int    `json:"models"`
}

// CurrentCatalog describes the catalog in force.
func CurrentCatalog() CatalogInfo {
	t := current()
	return CatalogInfo{Origin: t.origin, URL: t.url, AsOf: t.asOf, Models: len(t.rows)}
}

func (t *catalogTable) row(name string) (CatalogRow, bool) {
	i := sort.Search(len(t.rows), func(i int) bool { return t.rows[i].Name >= name })
	if i < len(t.rows) && t.rows[i].Name == name {
		return t.rows[i], true
	}
	return CatalogRow{}, false
}

// find is the catalog's row for a model: by exact name, without a
// provider prefix ("openai/gpt-4.1"), by the longest catalog name the
// model starts with followed by "-" ("gpt-4.1-2025-04-14" is gpt-4.1), and
// failing those, for a Claude model, the same with a version's dots as
// dashes (Anthropic's spelling).
func (t *catalogTable) find(name string) (CatalogRow, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if r, ok := t.row(name); ok {
		return r, true
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
		if r, ok := t.row(name); ok {
			return r, true
		}
	}
	for i := strings.LastIndexByte(name, '-'); i > 0; i = strings.LastIndexByte(name[:i], '-') {
		if r, ok := t.row(name[:i]); ok {
			return r, true
		}
	}
	if dashed := dashVersion(name); dashed != name && strings.Contains(name, "claude") {
		return t.find(dashed)
	}
	return CatalogRow{}, false
}

// dashVersion writes a version's dots as dashes ("claude-3.7-sonnet" is
// Anthropic's "claude-3-7-sonnet"), the other spelling of the same model.
func dashVersion(name string) string {
	b := []byte(name)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '.' && isDigit(b[i-1]) && isDigit(b[i+1]) {
			b[i] = '-'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// CatalogEntry returns the catalog's entry for a model (found as
// lookupCatalog finds it) and the source of its figures; ok is false when
// the catalog does not know the model.
func CatalogEntry(name string) (info ModelInfo, src Source, ok bool) {
	t := current()
	r, ok := t.find(name)
	if !ok {
		return ModelInfo{}, Source{}, false
	}
	return withRoundtrip(r.Info), Source{Source: "models.dev " + r.Provider, AsOf: t.asOf}, true
}

// lookupCatalog finds a model in the catalog in force (see
// catalogTable.find).
func lookupCatalog(name string) (ModelInfo, bool) {
	r, ok := current().find(name)
	return withRoundtrip(r.Info), ok
}

// withRoundtrip derives ReasoningRoundtrip from Interleaved: a model whose
// reasoning travels between tool steps as reasoning_content wants it back
// (Kimi K2 thinking, DeepSeek thinking with tools); the config may still
// say otherwise (mergeModel). reasoning_details travel raw instead
// (provider.EchoTable), and the others are not sent their reasoning.
func withRoundtrip(info ModelInfo) ModelInfo {
	if info.Interleaved == "reasoning_content" {
		info.ReasoningRoundtrip = true
	}
	return info
}

// CatalogModels returns the names of the models the catalog in force
// knows, sorted.
func CatalogModels() []string {
	rows := current().rows
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
	}
	return names
}
