package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EMemoryRmKeepsToThisProject: agent memory rm refuses the id of
// another project's memory, naming that project and --any, and keeps it;
// with --any it removes it and says whose it was. This project's and the
// user's memories go without --any.
func TestE2EMemoryRmKeepsToThisProject(t *testing.T) {
	e := newEnv(t)
	here := e.work
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	add := func(dir string, args ...string) string {
		t.Helper()
		e.work = dir
		defer func() { e.work = here }()
		res := e.run("", append([]string{"memory", "add", "--json"}, args...)...)
		var m struct{ ID string }
		if err := json.Unmarshal([]byte(res.stdout), &m); err != nil || m.ID == "" {
			t.Fatalf("memory add: %v %s %s", err, res.stdout, res.stderr)
		}
		return m.ID
	}
	theirs := add(other, "The other project deploys on Fridays")
	mine := add(here, "This project deploys on Mondays")
	users := add(other, "--user", "I like short answers")

	res := e.run("", "memory", "rm", theirs)
	if res.code == 0 || !strings.Contains(res.stderr, "belongs to the project "+other) || !strings.Contains(res.stderr, "--any") {
		t.Fatalf("rm of another project's memory: exit %d %q", res.code, res.stderr)
	}
	e.work = other
	if out := e.run("", "memory", "list").stdout; !strings.Contains(out, "Fridays") {
		t.Fatalf("the refused rm removed it:\n%s", out)
	}
	e.work = here
	for _, id := range []string{mine, users} {
		if res := e.run("", "memory", "rm", id); res.code != 0 {
			t.Fatalf("rm %s: %d %s", id, res.code, res.stderr)
		}
	}
	res = e.run("", "memory", "rm", "--any", theirs)
	if res.code != 0 || !strings.Contains(res.stdout, "removed memory "+theirs+" (of the project "+other+")") {
		t.Fatalf("rm --any: exit %d %q %q", res.code, res.stdout, res.stderr)
	}
	e.work = other
	if out := e.run("", "memory", "list").stdout; strings.Contains(out, "Fridays") {
		t.Fatalf("rm --any kept it:\n%s", out)
	}
}
