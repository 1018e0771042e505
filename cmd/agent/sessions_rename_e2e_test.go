package main

import (
	"strings"
	"testing"
)

// TestE2ESessionsRename: agent sessions rename ID TITLE retitles a session
// (by a prefix too); an unknown id, an empty title or one with terminal
// controls is refused with exit 1 or 2 and changes nothing.
func TestE2ESessionsRename(t *testing.T) {
	e := newEnv(t)
	id := seedSession(t, e, 1)
	res := e.run("", "sessions", "rename", id[:8], "fix", "the", "parser")
	if res.code != 0 || !strings.Contains(res.stderr, "renamed "+id) {
		t.Fatalf("rename: exit %d: %s", res.code, res.stderr)
	}
	if rows := e.listJSON(); len(rows) != 1 || rows[0].Title != "fix the parser" {
		t.Fatalf("rows after rename = %+v", rows)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ZZZZZZZZ", "x"}, 1, "no session ZZZZZZZZ"},
		{[]string{id, "  "}, 2, "empty"},
		{[]string{id, "evil\x1b]0;pwned\x07"}, 2, "control"},
		{[]string{id}, 2, ""},
	} {
		res := e.run("", append([]string{"sessions", "rename"}, tt.args...)...)
		if res.code != tt.code || !strings.Contains(res.stderr, tt.want) {
			t.Errorf("rename %q: exit %d, want %d and %q: %s", tt.args, res.code, tt.code, tt.want, res.stderr)
		}
	}
	if rows := e.listJSON(); len(rows) != 1 || rows[0].Title != "fix the parser" {
		t.Errorf("a refused rename changed the session: %+v", rows)
	}
}
