package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestThresholdWithoutStrategyIsHonoured (issue 27 item 8): a file that
// sets compaction.threshold and no strategy means the threshold strategy
// (it was silently ignored under the default "overflow"); a threshold set
// beside a strategy that does not use it is named in a warning.
func TestThresholdWithoutStrategyIsHonoured(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		strategy            string
		threshold           float64
		warn                string
	}{
		{"user threshold alone", `{"compaction": {"threshold": 0.5}}`, "", "threshold", 0.5, ""},
		{"project threshold alone", "", `{"compaction": {"threshold": 0.6}}`, "threshold", 0.6, ""},
		{"explicit threshold strategy", `{"compaction": {"strategy": "threshold", "threshold": 0.7}}`, "", "threshold", 0.7, ""},
		{"overflow beside a threshold", `{"compaction": {"strategy": "overflow", "threshold": 0.5}}`, "", "overflow", 0.5,
			"compaction.threshold is ignored with strategy \"overflow\""},
		{"manual beside a threshold", "", `{"compaction": {"strategy": "manual", "threshold": 0.5}}`, "manual", 0.5,
			"compaction.threshold is ignored with strategy \"manual\""},
		{"neither", `{"compaction": {"auto": true}}`, "", "overflow", 0.8, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			repo := filepath.Join(t.TempDir(), "repo")
			if tc.user != "" {
				writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), tc.user)
			}
			writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{}`)
			if tc.project != "" {
				writeJSON(t, filepath.Join(repo, ".agent", "config.json"), tc.project)
			}
			c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatal(err)
			}
			if c.Compaction.Strategy != tc.strategy || c.Compaction.Threshold != tc.threshold {
				t.Errorf("strategy %q threshold %v, want %q %v", c.Compaction.Strategy, c.Compaction.Threshold, tc.strategy, tc.threshold)
			}
			w := strings.Join(c.Warnings, "\n")
			if tc.warn == "" && strings.Contains(w, "compaction.threshold") || tc.warn != "" && !strings.Contains(w, tc.warn) {
				t.Errorf("warnings %q, want %q", w, tc.warn)
			}
		})
	}
}
