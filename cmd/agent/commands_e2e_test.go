package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// writeCommand writes a command file below dir.
func writeCommand(t *testing.T, dir, name, body string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandDirs are the env's project and user commands directories.
func (e *env) commandDirs() (project, user string) {
	return filepath.Join(e.work, ".agent", "commands"), filepath.Join(e.home, ".config", "agent", "commands")
}

// TestE2ERunExpandsCustomCommand: agent run /name args sends the
// command's text, the shell's quoting kept for $1…$9, and the user's
// command over the project's of the same name (hardening 2, item 9a).
func TestE2ERunExpandsCustomCommand(t *testing.T) {
	e := newEnv(t, pt.Text("reviewed"), pt.Text("committed"), pt.Text("from stdin"))
	project, user := e.commandDirs()
	writeCommand(t, user, "review.md", "---\ndescription: Review a file\nargument-hint: <file> [focus]\n---\nReview $1, focusing on $2. All: $ARGUMENTS")
	writeCommand(t, project, "review.md", "the project's review")
	writeCommand(t, user, "git/commit.md", "Commit message for: $ARGUMENTS")

	res := e.run("", "run", "/review", "main.go", "error handling")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if got := lastUser(reqs[0]); got != "Review main.go, focusing on error handling. All: main.go error handling" {
		t.Errorf("sent %q", got)
	}
	if res := e.run("", "run", "/git:commit fix the parser"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := lastUser(e.srv.Requests()[1]); got != "Commit message for: fix the parser" {
		t.Errorf("sent %q", got)
	}
	if res := e.run("/review \"a b\" c\n", "run"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := lastUser(e.srv.Requests()[2]); got != `Review a b, focusing on c. All: "a b" c` {
		t.Errorf("sent from stdin %q", got)
	}
}

// TestE2ERunUnknownCommandIsUsage: a /name no file has is exit 2 with no
// request; a path-like prompt and one with a leading space are text.
func TestE2ERunUnknownCommandIsUsage(t *testing.T) {
	e := newEnv(t, pt.Text("a path"), pt.Text("as text"))
	res := e.run("", "run", "/nonsense", "here")
	if res.code != 2 || !strings.Contains(res.stderr, "unknown command /nonsense") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d requests for an unknown command", n)
	}
	if res := e.run("", "run", "/etc/hosts: what is it?"); res.code != 0 {
		t.Fatalf("a path: exit %d: %s", res.code, res.stderr)
	}
	if res := e.run("", "run", " /nonsense"); res.code != 0 {
		t.Fatalf("leading space: exit %d: %s", res.code, res.stderr)
	}
	if got := lastUser(e.srv.Requests()[1]); got != " /nonsense" {
		t.Errorf("sent %q", got)
	}
}

// TestE2ECommandsLists: agent commands [--json] lists name, source,
// description and path, and reports skipped files on stderr. The user's
// command wins over the project's of the same name, which the table lists
// as shadowed (hardening 2, item 9a).
func TestE2ECommandsLists(t *testing.T) {
	e := newEnv(t)
	project, user := e.commandDirs()
	if res := e.run("", "commands"); res.code != 0 || !strings.Contains(res.stdout, "No custom commands") {
		t.Fatalf("none: exit %d %q %q", res.code, res.stdout, res.stderr)
	}
	writeCommand(t, project, "review.md", "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1")
	writeCommand(t, user, "review.md", "the user's")
	writeCommand(t, user, "git/commit.md", "# Write a commit message\n$ARGUMENTS")
	writeCommand(t, project, "quit.md", "taken by a built-in")

	res := e.run("", "commands", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rows []commandRow
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		t.Fatalf("%v: %q", err, res.stdout)
	}
	want := []commandRow{
		{Name: "git:commit", Source: "user", Description: "Write a commit message", Path: filepath.Join(user, "git", "commit.md")},
		{Name: "review", Source: "user", Description: "the user's",
			Path: filepath.Join(user, "review.md"), Overrides: filepath.Join(project, "review.md"), OverridesSource: "project"},
	}
	if len(rows) != len(want) || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("rows = %+v\nwant %+v", rows, want)
	}
	if !strings.Contains(res.stderr, "warning: custom command /quit") || !strings.Contains(res.stderr, "/quit is a built-in command") {
		t.Errorf("no clash warning: %q", res.stderr)
	}
	text := e.run("", "commands")
	for _, s := range []string{"/review <file>", "user (overrides project)", "project (shadowed)", "Review a file", "/git:commit", filepath.Join(user, "git", "commit.md")} {
		if !strings.Contains(text.stdout, s) {
			t.Errorf("text lacks %q:\n%s", s, text.stdout)
		}
	}
}

// TestE2ETUICustomCommand: in the real chat, "/" offers the command and
// sending it sends the expanded text.
func TestE2ETUICustomCommand(t *testing.T) {
	e := newEnv(t, pt.Text("looked at it"))
	project, _ := e.commandDirs()
	writeCommand(t, project, "explain.md", "---\ndescription: Explain a file simply\nargument-hint: <file>\n---\nExplain $1 to a newcomer.")
	s := startTUI(t, e)
	s.typeText("/expl")
	s.waitText("Explain a file simply · project")
	s.keys("Tab")
	s.send("cmd/main.go")
	s.waitText("looked at it")
	s.idle()
	reqs := e.srv.Requests()
	if len(reqs) != 1 || lastUser(reqs[0]) != "Explain cmd/main.go to a newcomer." {
		t.Fatalf("requests %d, last user %q", len(reqs), lastUser(reqs[len(reqs)-1]))
	}
}
