package gitcmd

import (
	"context"
	"strings"
	"testing"
)

func TestPrivateEnvironNamesOnlyTheStore(t *testing.T) {
	p := Private{GitDir: "/data/snapshots/x", WorkTree: "/w", IndexFile: "/data/snapshots/x/agent-index"}
	env := p.environ([]string{
		"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-x-0123456789",
		"GIT_DIR=/elsewhere", "GIT_INDEX_FILE=/elsewhere/index", "GIT_CONFIG_GLOBAL=/home/u/evil",
	})
	got := strings.Join(env, "\n")
	for _, bad := range []string{"OPENAI_API_KEY", "/elsewhere", "evil"} {
		if strings.Contains(got, bad) {
			t.Errorf("environment keeps %s:\n%s", bad, got)
		}
	}
	for _, want := range []string{"GIT_DIR=/data/snapshots/x", "GIT_WORK_TREE=/w", "GIT_INDEX_FILE=/data/snapshots/x/agent-index",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_LITERAL_PATHSPECS=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("environment lacks %s:\n%s", want, got)
		}
	}
	args := strings.Join(p.Command(t.Context(), "status").Args, " ")
	for _, want := range []string{"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.autocrlf=false"} {
		if !strings.Contains(args, want) {
			t.Errorf("command lacks %s: %s", want, args)
		}
	}
}

// TestBorrowIsNotGivenToCommandsThatWriteObjects: git touches an
// alternate's object it would write again, so the user's objects are
// named only to the commands that read.
func TestBorrowIsNotGivenToCommandsThatWriteObjects(t *testing.T) {
	p := Private{GitDir: "/s", WorkTree: "/w", IndexFile: "/s/i", Borrow: "/w/.git/objects"}
	for cmd, want := range map[string]bool{
		"cat-file": true, "ls-files": true, "diff-tree": true, "gc": true,
		"update-index": false, "write-tree": false, "hash-object": false, "commit-tree": false,
	} {
		got := false
		for _, kv := range p.Command(context.Background(), cmd).Env {
			if kv == "GIT_ALTERNATE_OBJECT_DIRECTORIES=/w/.git/objects" {
				got = true
			}
		}
		if got != want {
			t.Errorf("%s borrows: %v, want %v", cmd, got, want)
		}
	}
}
