package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInputLimit: the catalog knows the gpt-5 family's input cap, and a
// user file may set one per model; a project file's is ignored with a
// warning (DESIGN: wave-2 settings are the user's).
func TestInputLimit(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {"house-model": {"context_window": 64000, "input_limit": 48000}}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{
		"models": {"grok-4": {"input_limit": 100000}}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		limit int64
	}{
		{"gpt-5", 272000},
		{"gpt-5-mini-2025-08-07", 272000},
		{"openai/gpt-5-nano", 272000},
		{"gpt-4.1", 0}, // unknown: the window minus the reserve applies
		{"house-model", 48000},
		{"grok-4", 0},
	} {
		info, _ := c.ModelInfo(tt.name)
		if info.InputLimit != tt.limit {
			t.Errorf("%s: input limit %d, want %d", tt.name, info.InputLimit, tt.limit)
		}
	}
	if info, _ := c.ModelInfo("grok-4"); info.ContextWindow != 256000 || info.Price.Input != 3.00 {
		t.Errorf("grok-4 after the project's input limit: %+v, want the catalog's window and price", info)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "models.grok-4.input_limit is ignored in a project file") {
		t.Errorf("no warning about the project's input_limit: %q", c.Warnings)
	}
}

// TestDeclaredLimitsKeepTheCatalog: a user's entry for a catalog model
// changes the fields it sets and keeps every other one, prices included.
func TestDeclaredLimitsKeepTheCatalog(t *testing.T) {
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {
			"gpt-4.1": {"context_window": 200000},
			"gpt-5": {"max_output": 64000},
			"o3": {"input_limit": 150000},
			"deepseek-reasoner": {"price": {"output": 0.5}},
			"gpt-4o": {"reasoning_roundtrip": true}}}`)
	c, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		want ModelInfo
	}{
		{"gpt-4.1", ModelInfo{ContextWindow: 200000, MaxOutput: 32768, Price: Price{2.00, 8.00, 0.50, 0}, Vision: true, Cache: CacheAutomatic}},
		{"gpt-5", ModelInfo{ContextWindow: 400000, MaxOutput: 64000, InputLimit: 272000, Price: Price{1.25, 10.00, 0.125, 0}, Vision: true, Cache: CacheAutomatic, Reasoning: true, Efforts: mustEfforts(t, "minimal", "low", "medium", "high")}},
		{"o3", ModelInfo{ContextWindow: 200000, MaxOutput: 100000, InputLimit: 150000, Price: Price{2.00, 8.00, 0.50, 0}, Vision: true, Cache: CacheAutomatic, Reasoning: true, Efforts: mustEfforts(t, "low", "medium", "high")}},
		// Its reasoning travels as reasoning_content: it gets it back.
		{"deepseek-reasoner", ModelInfo{ContextWindow: 1000000, MaxOutput: 384000, Price: Price{0.14, 0.5, 0.0028, 0}, Cache: CacheAutomatic, Reasoning: true, Interleaved: "reasoning_content", ReasoningRoundtrip: true}},
		{"gpt-4o", ModelInfo{ContextWindow: 128000, MaxOutput: 16384, Price: Price{2.50, 10.00, 1.25, 0}, ReasoningRoundtrip: true, Vision: true, Cache: CacheAutomatic}},
	} {
		if info, known := c.ModelInfo(tt.name); info != tt.want || !known {
			t.Errorf("%s: %+v (known %v)\n want %+v", tt.name, info, known, tt.want)
		}
	}
}

// TestCompactionSizes: summary_max_tokens and tail_tokens parse from the
// user file and are ignored, with a warning, in a project file; prune
// thresholds (wave-1 settings a project may set) are zero — the default,
// scaled to the window — unless a file sets them.
func TestCompactionSizes(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	d, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Compaction{Auto: true, Strategy: "overflow", Threshold: 0.8, TailTurns: 2, Prune: true, SummaryMaxTokens: 8192}); d.Compaction != want {
		t.Errorf("defaults %+v, want %+v", d.Compaction, want)
	}

	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"compaction": {"summary_max_tokens": 4000, "tail_tokens": 9000, "prune_protect": 60000}}`)
	u, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c := u.Compaction; c.SummaryMaxTokens != 4000 || c.TailTokens != 9000 || c.PruneProtect != 60000 || c.PruneMinimum != 0 {
		t.Errorf("user file: %+v", c)
	}

	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{
		"compaction": {"summary_max_tokens": 2000, "tail_tokens": 3000, "prune_minimum": 1000}}`)
	p, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Compaction; c.SummaryMaxTokens != 4000 || c.TailTokens != 9000 || c.PruneProtect != 60000 || c.PruneMinimum != 1000 {
		t.Errorf("project file: %+v", c)
	}
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "compaction.summary_max_tokens is ignored") || !strings.Contains(w, "compaction.tail_tokens is ignored") {
		t.Errorf("no warnings about the project's compaction sizes: %q", p.Warnings)
	}
}

// TestBashMaxBackground: tools.bash.max_background defaults to 8, a user
// file sets it, a project file may not (a warning says so).
func TestBashMaxBackground(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	d, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Tools.BashMaxBackground != 8 {
		t.Errorf("default %d", d.Tools.BashMaxBackground)
	}
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"tools": {"bash": {"max_background": 3}}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"tools": {"bash": {"max_background": 500}}}`)
	p, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Tools.BashMaxBackground != 3 {
		t.Errorf("max_background %d, want the user's 3", p.Tools.BashMaxBackground)
	}
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "tools.bash.max_background is ignored in a project file") {
		t.Errorf("no warning: %q", p.Warnings)
	}
}
