package hooks

import (
	"encoding/json"
	"testing"
)

// TestPayloadCarriesMode: every hook sees the session's mode as
// permission_mode (Claude Code's name): "default" unless plan mode is on.
func TestPayloadCarriesMode(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{{"", "default"}, {"default", "default"}, {"plan", "plan"}} {
		for _, name := range []string{PreToolUse, Stop, SessionStart, UserPromptSubmit} {
			var m map[string]any
			if err := json.Unmarshal(Payload(Event{Name: name, Mode: tc.mode}), &m); err != nil {
				t.Fatal(err)
			}
			if m["permission_mode"] != tc.want {
				t.Errorf("%s with mode %q: permission_mode %v, want %q", name, tc.mode, m["permission_mode"], tc.want)
			}
		}
	}
}
