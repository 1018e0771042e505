package config

import (
	"path/filepath"
	"testing"
)

// TestRoundtripFollowsInterleaved: a model whose catalog row says its
// reasoning travels as reasoning_content gets it back (Kimi K2 thinking,
// DeepSeek thinking); one whose reasoning travels as reasoning_details
// (OpenRouter) or that says nothing does not; the config's
// reasoning_roundtrip wins either way.
func TestRoundtripFollowsInterleaved(t *testing.T) {
	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"models": {
			"deepseek-v4-flash": {"reasoning_roundtrip": false},
			"gemini-3-pro-preview": {"reasoning_roundtrip": true}}}`)
	c, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		model string
		want  bool
	}{
		{"kimi-k2-thinking", true},
		{"deepseek-reasoner", true},
		{"moonshotai/kimi-k2-thinking", false}, // OpenRouter: reasoning_details
		{"anthropic/claude-sonnet-4.5", false},
		{"o3", false},
		{"some-local-model", false},
		{"deepseek-v4-flash", false},   // the config says no
		{"gemini-3-pro-preview", true}, // the config says yes
	} {
		if info, _ := c.ModelInfo(tt.model); info.ReasoningRoundtrip != tt.want {
			t.Errorf("%s: reasoning_roundtrip %v, want %v", tt.model, info.ReasoningRoundtrip, tt.want)
		}
	}
}
