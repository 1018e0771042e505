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
