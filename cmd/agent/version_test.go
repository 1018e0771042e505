package main

import (
	"runtime/debug"
	"testing"
)

// TestResolveVersion: a binary built without -ldflags (go run, go
// install) names its module version or commit rather than "dev".
func TestResolveVersion(t *testing.T) {
	info := func(v string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tt := range []struct {
		name, stamped string
		read          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"ldflags win", "v1.0.0", info("v2.0.0"), "v1.0.0"},
		{"go install @version", "dev", info("v0.3.1"), "v0.3.1"},
		{"pseudo-version", "dev", info("v0.0.0-20261126091325-b735236a1b2c+dirty"), "v0.0.0-20261126091325-b735236a1b2c+dirty"},
		{"commit, modified", "dev", info("(devel)", "vcs.revision", "b735236a1b2c3d4e5f", "vcs.modified", "true"), "b735236a1b2c+modified"},
		{"commit, clean", "dev", info("(devel)", "vcs.revision", "b735236a1b2c3d4e5f", "vcs.modified", "false"), "b735236a1b2c"},
		{"nothing recorded", "dev", info("(devel)"), "dev"},
		{"no build info", "dev", none, "dev"},
	} {
		if got := resolveVersion(tt.stamped, tt.read); got != tt.want {
			t.Errorf("%s: resolveVersion = %q, want %q", tt.name, got, tt.want)
		}
	}
}
