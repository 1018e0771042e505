package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModeConfig: config mode may come from a project file (plan mode only
// takes tools away); a value other than default or plan is warned about
// and ignored; mcp read-only marks are read.
func TestModeConfig(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"mcp": {"docs": {"command": "docs", "read_only": true, "read_only_tools": ["search"]}}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"mode": "plan"}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModePlan {
		t.Errorf("mode = %q, want the project's plan", c.Mode)
	}
	if d := c.MCP["docs"]; !d.ReadOnly || len(d.ReadOnlyTools) != 1 {
		t.Errorf("docs server's read-only marks: %+v", d)
	}
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"mode": "yolo"}`)
	c, err = Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "" || !strings.Contains(strings.Join(c.Warnings, "\n"), `mode "yolo" is ignored`) {
		t.Errorf("mode yolo: %q, warnings %q", c.Mode, c.Warnings)
	}
}
