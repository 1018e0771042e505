package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestSeatbeltProfileGolden: the macOS profile, as text, for a
// workspace-write policy with a writable cache, the data directory and a
// path that needs quoting; and network allowed in read-only.
func TestSeatbeltProfileGolden(t *testing.T) {
	for name, p := range map[string]Policy{
		"seatbelt_workspace_write": {Mode: ModeWorkspaceWrite, Workspace: "/Users/me/src/app", Writable: []string{`/Users/me/Library/Caches/go "build"`},
			ReadOnly: []string{"/Users/me/Library/Application Support/agent"}},
		"seatbelt_read_only_network": {Mode: ModeReadOnly, Workspace: "/Users/me/src/app", Network: NetworkAllow},
	} {
		got := SeatbeltProfile(p, "/private/var/folders/xy/T/agent-sandbox-1")
		path := filepath.Join("testdata", name+".golden")
		if *updateGolden {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: profile\n%s\nwant\n%s", name, got, want)
		}
	}
}
