package config

import (
	"path/filepath"
	"testing"
)

func TestNeedsModelChoice(t *testing.T) {
	tests := []struct {
		name        string
		user, proj  string // config files' bodies ("" for none)
		flags       Flags
		env         map[string]string
		wantChoice  bool
		wantModel   string
		wantSetting bool
	}{
		{"OpenAI's endpoint has a good default", "", "", Flags{}, nil, false, DefaultModel, false},
		{"a custom server and nothing named", "", "", Flags{BaseURL: "http://127.0.0.1:11434/v1"}, nil, true, DefaultModel, false},
		{"the env names the server only", "", "", Flags{}, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, true, DefaultModel, false},
		{"--model", "", "", Flags{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1"}, nil, false, "llama3.1", true},
		{"AGENT_MODEL", "", "", Flags{BaseURL: "http://127.0.0.1:11434/v1"}, map[string]string{"AGENT_MODEL": "qwen"}, false, "qwen", true},
		{"the user file's model", `{"model": "qwen", "base_url": "http://127.0.0.1:11434/v1"}`, "", Flags{}, nil, false, "qwen", true},
		{"the project file's model", "", `{"model": "qwen"}`, Flags{BaseURL: "http://127.0.0.1:11434/v1"}, nil, false, "qwen", true},
		{"the default model written out", `{"model": "gpt-4.1"}`, "", Flags{BaseURL: "http://127.0.0.1:11434/v1"}, nil, false, "gpt-4.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			if tt.user != "" {
				writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), tt.user)
			}
			if tt.proj != "" {
				writeJSON(t, filepath.Join(dir, ".agent", "config.json"), tt.proj)
			}
			env := map[string]string{"HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			c, err := Load(tt.flags, dir, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.NeedsModelChoice(); got != tt.wantChoice {
				t.Errorf("NeedsModelChoice() = %v, want %v", got, tt.wantChoice)
			}
			if c.Model != tt.wantModel || c.ModelConfigured != tt.wantSetting {
				t.Errorf("model %q configured %v, want %q %v", c.Model, c.ModelConfigured, tt.wantModel, tt.wantSetting)
			}
		})
	}
}

func TestSoleServedModel(t *testing.T) {
	for _, tt := range []struct {
		served []string
		want   string
		ok     bool
	}{
		{nil, "", false},
		{[]string{"llama3.1"}, "llama3.1", true},
		{[]string{"llama3.1", "qwen2.5-coder"}, "", false},
	} {
		got, ok := SoleServedModel(tt.served)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SoleServedModel(%v) = %q, %v; want %q, %v", tt.served, got, ok, tt.want, tt.ok)
		}
	}
}
