package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestVerifyConfig(t *testing.T) {
	cases := []struct {
		name, user, project string
		want                Verify
		err                 string
	}{
		{name: "default on", user: `{}`, want: Verify{Enabled: true}},
		{name: "bool off", user: `{"verify": false}`, want: Verify{}},
		{name: "object", user: `{"verify": {"commands": ["./check.sh"]}}`, want: Verify{Enabled: true, Commands: []string{"./check.sh"}}},
		{name: "object off", user: `{"verify": {"enabled": false}}`, want: Verify{}},
		{name: "project off", user: `{}`, project: `{"verify": false}`, want: Verify{}},
		{name: "bad", user: `{"verify": "yes"}`, err: "verify: want true, false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, repo := t.TempDir(), t.TempDir()
			writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), c.user)
			if c.project != "" {
				writeJSON(t, filepath.Join(repo, ".agent", "config.json"), c.project)
			}
			cfg, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Verify.Enabled != c.want.Enabled || !slices.Equal(cfg.Verify.Commands, c.want.Commands) {
				t.Fatalf("Verify = %+v, want %+v", cfg.Verify, c.want)
			}
		})
	}
}
