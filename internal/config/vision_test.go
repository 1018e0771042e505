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
		name          string
		vision, sends bool
	}{
		{"gpt-4.1", true, true},
		{"gpt-4o", true, true},
		{"gpt-5-mini-2025-08-07", true, true},
		{"openai/gpt-5", true, true},
		{"claude-sonnet-4.5", true, true},
		{"gemini-2.5-flash", true, true},
		{"o3", true, true},
		{"o4-mini", true, true},
		{"deepseek-chat", false, false}, // the project's vision is ignored; the catalog says text
		{"local-model", false, true},    // unknown: images are sent
		{"unknown-model", false, true},
		{"house-vl", true, true},
		{"gpt-4o-mini", false, false}, // the user turned it off
	} {
		info, _ := c.ModelInfo(tt.name)
		if info.Vision != tt.vision || info.SendsImages() != tt.sends {
			t.Errorf("%s: vision %v sends images %v, want %v %v", tt.name, info.Vision, info.SendsImages(), tt.vision, tt.sends)
		}
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "models.deepseek-chat.vision is ignored in a project file") {
		t.Errorf("no warning about the project's vision: %q", c.Warnings)
	}
}
