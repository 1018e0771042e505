package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotsConfig: checkpoints are on by default with a 2 MB file
// limit and a 1 GB store; the user file may change them, a project file
// may not (a repository must not switch off the user's undo).
func TestSnapshotsConfig(t *testing.T) {
	d, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Snapshots{Enabled: true, MaxFileBytes: 2 << 20, IgnoredMaxBytes: 1 << 20, CapBytes: 1 << 30, MaxFiles: 200_000, FirstSnapshot: 5 * time.Second}); d.Snapshots != want {
		t.Errorf("defaults = %+v, want %+v", d.Snapshots, want)
	}

	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"snapshots": {"max_file_bytes": 1000, "cap_bytes": 5000}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{
		"snapshots": {"enabled": false, "max_file_bytes": 99999999999}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Snapshots{Enabled: true, MaxFileBytes: 1000, IgnoredMaxBytes: 1 << 20, CapBytes: 5000, MaxFiles: DefaultSnapshotMaxFiles, FirstSnapshot: DefaultSnapshotFirst}); c.Snapshots != want {
		t.Errorf("snapshots = %+v, want the user's %+v", c.Snapshots, want)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "snapshots is ignored in a project file") {
		t.Errorf("no warning about the project's snapshots: %q", c.Warnings)
	}

	off := t.TempDir()
	writeJSON(t, filepath.Join(off, ".config", "agent", "config.json"), `{"snapshots": {"enabled": false}}`)
	o, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": off}))
	if err != nil {
		t.Fatal(err)
	}
	if o.Snapshots.Enabled || o.Snapshots.MaxFileBytes != DefaultSnapshotMaxFileBytes {
		t.Errorf("user switched off: %+v", o.Snapshots)
	}
}

// TestCheckpointsConfigNamesTheContract (issue 26): "checkpoints" is the
// key (enabled, max_file_bytes, ignored_max_bytes), "snapshots" its alias;
// where both set a field, "checkpoints" wins; a project file may set
// neither.
func TestCheckpointsConfigNamesTheContract(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"snapshots": {"max_file_bytes": 1000, "cap_bytes": 5000, "enabled": false},
		"checkpoints": {"enabled": true, "ignored_max_bytes": 4096, "max_file_bytes": 3000}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"checkpoints": {"enabled": false}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Snapshots{Enabled: true, MaxFileBytes: 3000, IgnoredMaxBytes: 4096, CapBytes: 5000, MaxFiles: DefaultSnapshotMaxFiles, FirstSnapshot: DefaultSnapshotFirst}); c.Snapshots != want {
		t.Errorf("checkpoints = %+v, want %+v", c.Snapshots, want)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "checkpoints is ignored in a project file") {
		t.Errorf("no warning about the project's checkpoints: %q", c.Warnings)
	}

	off := t.TempDir()
	writeJSON(t, filepath.Join(off, ".config", "agent", "config.json"), `{"checkpoints": {"enabled": false}}`)
	o, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": off}))
	if err != nil {
		t.Fatal(err)
	}
	if o.Snapshots.Enabled {
		t.Errorf("checkpoints.enabled false did not switch them off: %+v", o.Snapshots)
	}
}

// TestCheckpointsBudgetConfig: checkpoints.max_files and
// first_snapshot_seconds set the budget of a whole-tree checkpoint, from
// the user file only (0 switches a bound off).
func TestCheckpointsBudgetConfig(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{
		"checkpoints": {"max_files": 10, "first_snapshot_seconds": 0.5}}`)
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"checkpoints": {"max_files": 1, "first_snapshot_seconds": 0}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Snapshots.MaxFiles != 10 || c.Snapshots.FirstSnapshot != 500*time.Millisecond {
		t.Errorf("budget = %d files, %s; want the user's 10 files, 500ms", c.Snapshots.MaxFiles, c.Snapshots.FirstSnapshot)
	}
}
