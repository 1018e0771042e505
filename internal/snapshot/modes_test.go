package snapshot

import (
	"reflect"
	"testing"
)

// TestWithModesGivesExactBits: a change carries the exact bits of both
// sides (recorded, else git's canonical ones), and a chmod that git does
// not see (0640 → 0644, 0755 → 0700 while content and exec bit stay) is a
// change of its own.
func TestWithModesGivesExactBits(t *testing.T) {
	changes := []FileChange{{Path: "run.sh", Status: Modified, OldMode: "100644", NewMode: "100755"}}
	from := map[string]uint32{"run.sh": 0o600, "key.pem": 0o640}
	to := map[string]uint32{"tool": 0o700}
	got := withModes(changes, from, to, nil)
	want := []FileChange{
		{Path: "key.pem", Status: Modified, OldMode: "100644", NewMode: "100644", OldPerm: 0o640, NewPerm: 0o644, ModeOnly: true},
		{Path: "run.sh", Status: Modified, OldMode: "100644", NewMode: "100755", OldPerm: 0o600, NewPerm: 0o755},
		{Path: "tool", Status: Modified, OldMode: "100755", NewMode: "100755", OldPerm: 0o755, NewPerm: 0o700, ModeOnly: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got := withModes(nil, from, to, []string{"src"}); len(got) != 0 {
		t.Errorf("out of scope: %+v", got)
	}
}
