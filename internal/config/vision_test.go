package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVision: the catalog marks the models that take images, a user file
// may say so of any model (or turn it off), and a project file's vision is
// ignored with a warning (DESIGN: wave-2 settings are the user's).
func TestVision(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {"house-vl": {"context_window": 64000, "vision": true}, "gpt-4o-mini": {"vision": false}}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{
		"models": {"deepseek-chat": {"vision": true}, "local-model": {"vision": true}}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		vision bool
	}{
		{"gpt-4.1", true},
		{"gpt-4o", true},
		{"gpt-5-mini-2025-08-07", true},
		{"openai/gpt-5", true},
		{"claude-sonnet-4.5", true},
		{"gemini-2.5-flash", true},
		{"o3", false},
		{"deepseek-chat", false}, // the project's vision is ignored
		{"local-model", false},
		{"unknown-model", false},
		{"house-vl", true},
		{"gpt-4o-mini", false}, // the user turned it off
	} {
		info, _ := c.ModelInfo(tt.name)
		if info.Vision != tt.vision {
			t.Errorf("%s: vision %v, want %v", tt.name, info.Vision, tt.vision)
		}
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "models.deepseek-chat.vision is ignored in a project file") {
		t.Errorf("no warning about the project's vision: %q", c.Warnings)
	}
}
