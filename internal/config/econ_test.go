package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// budget is the user's alone: a repository cannot raise (or lower) what
// its sessions may spend.
func TestBudgetIsUserFileOnly(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"budget": 0.5}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"budget": 1000}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Budget != 0.5 {
		t.Errorf("budget = %v, want the user's 0.5", c.Budget)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "budget is ignored in a project file") {
		t.Errorf("no warning about the project's budget: %q", c.Warnings)
	}
}

// A user's cache_write price merges over the catalog's other figures.
func TestCacheWritePriceMerges(t *testing.T) {
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"),
		`{"models": {"claude-sonnet-4.5": {"price": {"cache_write": 6}}, "gpt-4.1": {"context_window": 64000}}}`)
	c, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ModelInfo("claude-sonnet-4.5"); got.Price != (Price{3.00, 15.00, 0.30, 6}) {
		t.Errorf("claude-sonnet-4.5 price = %+v", got.Price)
	}
	if got, _ := c.ModelInfo("gpt-4.1"); got.Price != (Price{2.00, 8.00, 0.50, 0}) {
		t.Errorf("gpt-4.1 price = %+v, want the catalog's", got.Price)
	}
}

// tools: false marks the model tool-less; unset keeps tools.
func TestToolsFalse(t *testing.T) {
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"),
		`{"models": {"gemma:2b": {"tools": false}, "gpt-4.1": {"context_window": 64000}}}`)
	c, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := c.ModelInfo("gemma:2b"); !info.NoTools {
		t.Error("gemma:2b keeps tools")
	}
	if info, _ := c.ModelInfo("gpt-4.1"); info.NoTools {
		t.Error("gpt-4.1 lost its tools")
	}
}

// Every catalog entry names the source and date of its figures.
func TestCatalogEntriesHaveSources(t *testing.T) {
	for _, name := range CatalogModels() {
		if _, src, ok := CatalogEntry(name); !ok || src.Source == "" || src.AsOf == "" {
			t.Errorf("%s: known %v, source %+v", name, ok, src)
		}
	}
	if info, src, ok := CatalogEntry("openai/gpt-4.1-2025-04-14"); !ok || info.ContextWindow != 1047576 || src.Source != "models.dev openai" || src.AsOf != ModelsDevDate {
		t.Errorf("openai/gpt-4.1-2025-04-14: %v %+v %+v", ok, info, src)
	}
	if _, _, ok := CatalogEntry("llama3.1"); ok {
		t.Errorf("llama3.1 found in the catalog")
	}
}
