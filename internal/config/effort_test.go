package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEffortRule: a catalog row that names levels takes those, a row
// that says the model does not reason takes none, and a model no row
// describes (or a reasoning row without levels) takes any known level;
// every refusal lists what the model takes.
func TestEffortRule(t *testing.T) {
	for _, tt := range []struct {
		model, level string
		ok           bool
		says         string
	}{
		{"o3", "high", true, ""},
		{"o3", "minimal", false, "takes reasoning effort low, medium or high, not minimal"},
		{"gpt-5", "minimal", true, ""},
		{"gpt-4.1", "low", false, "gpt-4.1 takes no reasoning effort"},
		{"gpt-4.1", "", true, ""},
		{"my-local-qwen", "high", true, ""},
		{"my-local-qwen", "turbo", false, "unknown reasoning effort \"turbo\": want none, minimal, low, medium, high, xhigh or max"},
		{"deepseek-reasoner", "high", true, ""}, // reasons; no levels named
		{"gemini-3-pro-preview", "medium", false, "takes reasoning effort low or high, not medium"},
	} {
		err := EffortRuleOf(tt.model).Check(tt.level)
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("%s %q: %v; want ok %v saying %q", tt.model, tt.level, err, tt.ok, tt.says)
		}
	}
	if got := EffortRuleOf("o3").Allowed(); got != "low, medium or high" {
		t.Errorf("o3 allows %q", got)
	}
}

// TestEffortConfigKey: models.NAME.effort in the user file reaches the
// model's info; one its model does not take is dropped with a warning
// naming the key and the levels; a project file's is ignored (it would
// bill the user more); an unknown word fails the load naming the key.
func TestEffortConfigKey(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {"o3": {"effort": "high"}, "gpt-4.1": {"effort": "low"}, "gpt-5": {"effort": "xhigh"},
		           "local-llama": {"context_window": 8192, "effort": "medium"}}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"models": {"gpt-5-mini": {"effort": "high"}}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]string{"o3": "high", "gpt-4.1": "", "gpt-5": "", "local-llama": "medium", "gpt-5-mini": ""} {
		if info, _ := c.ModelInfo(model); info.Effort != want {
			t.Errorf("%s: effort %q, want %q", model, info.Effort, want)
		}
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, want := range []string{
		`models.gpt-4.1.effort "low" is ignored: model gpt-4.1 takes no reasoning effort`,
		`models.gpt-5.effort "xhigh" is ignored: model gpt-5 takes reasoning effort minimal, low, medium or high, not xhigh`,
		"models.gpt-5-mini.effort is ignored in a project file",
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}

	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"models": {"o3": {"effort": "hihg"}}}`)
	_, err = Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err == nil || !strings.Contains(err.Error(), `models.o3.effort "hihg": want none, minimal, low, medium, high, xhigh or max`) {
		t.Errorf("a bad level: %v", err)
	}
}
