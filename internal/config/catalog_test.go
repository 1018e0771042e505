package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustEfforts(t *testing.T, levels ...string) Efforts {
	t.Helper()
	e, err := ParseEfforts(levels)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFamilyRules: what no catalog row says — any Claude model gets cache
// markers; an unknown model's vision is unknown (images are sent), while a
// catalog row or the user's config saying text-only still refuses them.
func TestFamilyRules(t *testing.T) {
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {"claude-house": {"context_window": 64000}, "text-only": {"vision": false}}}`)
	c, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		known bool
		cache string
		sends bool
	}{
		{"claude-opus-9", false, CacheExplicit, true},
		{"vendor/claude-next", false, CacheExplicit, true},
		{"claude-house", true, CacheExplicit, true},
		{"mystery-model", false, "", true},
		{"text-only", true, "", false},
		{"deepseek-chat", true, CacheAutomatic, false}, // a text-only catalog row
		{"gpt-5", true, CacheAutomatic, true},
	} {
		info, known := c.ModelInfo(tt.name)
		if known != tt.known || info.Cache != tt.cache || info.SendsImages() != tt.sends {
			t.Errorf("%s: known %v cache %q sends images %v; want %v %q %v", tt.name, known, info.Cache, info.SendsImages(), tt.known, tt.cache, tt.sends)
		}
	}
}

// TestEffortsAndInterleaved: the reasoning effort levels and the
// interleaved reasoning field reach ModelInfo for the effort and
// round-trip work.
func TestEffortsAndInterleaved(t *testing.T) {
	for _, tt := range []struct {
		name        string
		reasoning   bool
		efforts     []string
		interleaved string
	}{
		{"gpt-5", true, []string{"minimal", "low", "medium", "high"}, ""},
		{"gpt-5.5", true, []string{"none", "low", "medium", "high", "xhigh"}, ""},
		{"gemini-3-pro-preview", true, []string{"low", "high"}, ""},
		{"kimi-k2-thinking", true, nil, "reasoning_content"},
		{"deepseek-reasoner", true, nil, "reasoning_content"},
		{"google/gemini-3.1-pro-preview", true, []string{"low", "medium", "high"}, "reasoning_details"},
		{"gpt-4.1", false, nil, ""},
	} {
		info, ok := lookupCatalog(tt.name)
		if !ok || info.Reasoning != tt.reasoning || !reflect.DeepEqual(info.Efforts.Values(), tt.efforts) || info.Interleaved != tt.interleaved {
			t.Errorf("%s: known %v reasoning %v efforts %v interleaved %q; want %v %v %q", tt.name, ok, info.Reasoning, info.Efforts.Values(), info.Interleaved, tt.reasoning, tt.efforts, tt.interleaved)
		}
	}
	e := mustEfforts(t, "low", "high")
	if !e.Allows("high") || e.Allows("medium") || e.Allows("bogus") || e.String() != "low|high" {
		t.Errorf("efforts %v: allows high %v medium %v", e, e.Allows("high"), e.Allows("medium"))
	}
	if _, err := ParseEfforts([]string{"turbo"}); err == nil || !strings.Contains(err.Error(), `"turbo"`) {
		t.Errorf("ParseEfforts(turbo) = %v", err)
	}
}

// modelsDevFixture is a models.dev api.json in miniature: a vendor, a
// router with a vendor's id and an alias, shapes of reasoning_options and
// interleaved, and models the catalog leaves out.
const modelsDevFixture = `{
  "openai": {"id": "openai", "models": {
    "gpt-9": {"id": "gpt-9", "reasoning": true, "tool_call": true,
      "reasoning_options": [{"type": "toggle"}, {"type": "effort", "values": ["low", null, "high", "ultra"]}],
      "cost": {"input": 1.5, "output": 6, "cache_read": 0.15},
      "limit": {"context": 500000, "input": 400000, "output": 100000},
      "modalities": {"input": ["text", "image"], "output": ["text"]}},
    "gpt-9-image": {"id": "gpt-9-image", "limit": {"context": 1000, "output": 100},
      "modalities": {"input": ["text"], "output": ["image"]}},
    "text-embedding-9": {"id": "text-embedding-9", "limit": {"context": 0, "output": 0}}}},
  "moonshotai": {"id": "moonshotai", "models": {
    "kimi-k9": {"id": "kimi-k9", "reasoning": true, "tool_call": false, "interleaved": {"field": "reasoning_content"},
      "limit": {"context": 262144, "output": 32768}, "modalities": {"input": ["text"], "output": ["text"]}}}},
  "openrouter": {"id": "openrouter", "models": {
    "openai/gpt-9": {"id": "openai/gpt-9", "cost": {"input": 99, "output": 99}, "limit": {"context": 1000, "output": 10}},
    "anthropic/claude-zeta-5": {"id": "anthropic/claude-zeta-5", "interleaved": true,
      "cost": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75},
      "limit": {"context": 200000, "output": 64000}, "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}}}},
  "someone-else": {"id": "someone-else", "models": {"gpt-9": {"limit": {"context": 7}}}}
}`

// TestCatalogFromModelsDev: the rules by which both the generator and a
// refresh read the data set.
func TestCatalogFromModelsDev(t *testing.T) {
	rows, err := CatalogFromModelsDev([]byte(modelsDevFixture))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	by := map[string]CatalogRow{}
	for _, r := range rows {
		names = append(names, r.Name)
		by[r.Name] = r
	}
	want := []string{"anthropic/claude-zeta-5", "claude-zeta-5", "gpt-9", "grok-3-mini", "grok-4", "kimi-k9", "openai/gpt-9"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	gpt := by["gpt-9"]
	wantGPT := ModelInfo{ContextWindow: 500000, MaxOutput: 100000, InputLimit: 400000, Price: Price{1.5, 6, 0.15, 0},
		Vision: true, Reasoning: true, Efforts: mustEfforts(t, "low", "high"), Cache: CacheAutomatic}
	if gpt.Provider != "openai" || gpt.Info != wantGPT {
		t.Errorf("gpt-9 from %s: %+v\n want %+v", gpt.Provider, gpt.Info, wantGPT)
	}
	if k := by["kimi-k9"].Info; !k.NoTools || k.Interleaved != "reasoning_content" || k.Vision {
		t.Errorf("kimi-k9: %+v", k)
	}
	if c := by["claude-zeta-5"]; c.Provider != "openrouter" || c.Info.Cache != CacheExplicit || c.Info.Interleaved != InterleavedUnnamed || !c.Info.Vision || c.Info.Price.CacheWrite != 3.75 {
		t.Errorf("claude-zeta-5 alias: %+v", c)
	}
	if r := by["openai/gpt-9"]; r.Info.Price.Input != 99 {
		t.Errorf("openai/gpt-9 is the router's own row: %+v", r)
	}

	for _, bad := range []string{
		`[]`,
		`{"openai": {"models": {"gpt-9": {"limit": {"context": "big"}}}}}`,
		`{"openai": {"models": {"gpt-9": {"limit": {"context": 5}, "interleaved": "sometimes"}}}}`,
		`{"elsewhere": {"models": {}}}`,
		`{"openai": {"models": {"gpt-9-image": {"limit": {"context": 0}}}}}`,
	} {
		if _, err := CatalogFromModelsDev([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestCatalogFileInForce: a refreshed catalog in the data directory is
// used by every later Load, offline, over the embedded one; it is written
// 0600; a file that fails to parse leaves the embedded catalog in force
// with a warning naming it.
func TestCatalogFileInForce(t *testing.T) {
	t.Cleanup(func() { activeCatalog.Store(nil) })
	data := t.TempDir()
	env := envOf(map[string]string{"HOME": t.TempDir(), "AGENT_DATA_DIR": data})
	rows, err := CatalogFromModelsDev([]byte(modelsDevFixture))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, CatalogFileName)
	if err := WriteCatalogFile(path, rows, "http://127.0.0.1/api.json", "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("catalog file: %v %v", st.Mode(), err)
	}
	c, err := Load(Flags{Model: "gpt-9"}, t.TempDir(), env)
	if err != nil {
		t.Fatal(err)
	}
	if info, known := c.ModelInfo("gpt-9-2027-01-01"); !known || info.ContextWindow != 500000 || info.Efforts.String() != "low|high" || info.InputLimit != 400000 {
		t.Errorf("gpt-9 from the file: %v %+v", known, info)
	}
	if _, known := c.ModelInfo("gemini-3-pro-preview"); known {
		t.Error("the embedded catalog is still consulted beside the file")
	}
	if cur := CurrentCatalog(); cur.Origin != path || cur.AsOf != "2026-11-26" || cur.Models != len(rows) {
		t.Errorf("current catalog %+v", cur)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %q", c.Warnings)
	}
	// The user's declared limits still win over the refreshed row.
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"models": {"gpt-9": {"context_window": 123456}}}`)
	u, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home, "AGENT_DATA_DIR": data}))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := u.ModelInfo("gpt-9"); info.ContextWindow != 123456 || info.MaxOutput != 100000 || info.Price.Input != 1.5 {
		t.Errorf("gpt-9 declared by the user over the file: %+v", info)
	}

	for _, corrupt := range []string{`{"format": 1, "models": [`, `{"format": 99, "models": []}`, `{"format": 1, "models": []}`, `{"format": 1, "models": [{"name": "x", "context_window": 0}]}`} {
		if err := os.WriteFile(path, []byte(corrupt), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Flags{}, t.TempDir(), env)
		if err != nil {
			t.Fatalf("%s: %v", corrupt, err)
		}
		if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "catalog file "+path) || !strings.Contains(w, "embedded catalog") {
			t.Errorf("%s: warnings %q", corrupt, c.Warnings)
		}
		if info, known := c.ModelInfo("gemini-3-pro-preview"); !known || info.ContextWindow != 1048576 {
			t.Errorf("%s: the embedded catalog is not in force", corrupt)
		}
		if cur := CurrentCatalog(); cur.Origin != "embedded" || cur.AsOf != ModelsDevDate {
			t.Errorf("%s: current catalog %+v", corrupt, cur)
		}
	}
}

// TestCatalogFileHostile: a FIFO, a device or a link out of the data
// directory where the catalog file belongs is skipped with a warning and
// the embedded catalog used; the start never blocks on it.
func TestCatalogFileHostile(t *testing.T) {
	t.Cleanup(func() { activeCatalog.Store(nil) })
	for _, kind := range []string{"fifo", "dev-zero", "link-outside"} {
		data := t.TempDir()
		path := filepath.Join(data, CatalogFileName)
		plantConfig(t, kind, path)
		c, err := loadWithin(t, Flags{}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir(), "AGENT_DATA_DIR": data}))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "catalog file "+path) || !strings.Contains(w, "embedded catalog") {
			t.Errorf("%s: warnings %q", kind, c.Warnings)
		}
		if cur := CurrentCatalog(); cur.Origin != "embedded" {
			t.Errorf("%s: current catalog %+v", kind, cur)
		}
	}
}
