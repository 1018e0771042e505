package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryConfig: memory is the user's to set; a project file's is
// ignored with a warning, a value not known is warned about.
func TestMemoryConfig(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		want                Memory
		warn                string
	}{
		{name: "unset asks", want: Memory{}},
		{name: "user sets it", user: `{"memory": {"remember": "propose", "scope": "user"}}`, want: Memory{Remember: "propose", Scope: "user"}},
		{name: "a project cannot", user: `{"memory": {"remember": "ask"}}`, project: `{"memory": {"remember": "allow"}}`,
			want: Memory{Remember: "ask"}, warn: "memory is ignored in a project file"},
		{name: "unknown value", user: `{"memory": {"remember": "always"}}`, want: Memory{}, warn: `memory.remember "always" is ignored`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := t.TempDir(), t.TempDir()
			if tc.user != "" {
				writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), tc.user)
			}
			if tc.project != "" {
				writeJSON(t, filepath.Join(repo, ".agent", "config.json"), tc.project)
			}
			c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatal(err)
			}
			if c.Memory != tc.want {
				t.Fatalf("Memory = %+v, want %+v", c.Memory, tc.want)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tc.warn) {
				t.Fatalf("warnings %q lack %q", c.Warnings, tc.warn)
			}
			if c.Memory.RememberMode() == "" {
				t.Fatal("no default mode")
			}
		})
	}
}
