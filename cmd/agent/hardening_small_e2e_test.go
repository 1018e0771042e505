package main

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ECompactWithNothingToCompactSaysWhy: `agent compact` of a short
// conversation asked for summaries, rejected them and dropped a turn
// without one (hardening 2, item 9c); of a one-turn session it failed
// (exit 1) with a bare "nothing to compact yet". It now says there is
// nothing to compact and why, on stdout, sends no request and exits 0:
// there was nothing to do, which is not a failure.
func TestE2ECompactWithNothingToCompactSaysWhy(t *testing.T) {
	summary := "## Goal\nship\n\n" + strings.Repeat("detail ", 400)
	e := newEnv(t, pt.Text("short answer"), pt.Text("another"), pt.Text(summary), pt.Text(summary))
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	res := e.run("", "compact", "-c")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "nothing to compact yet: ") {
		t.Fatalf("one turn: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res := e.run("", "run", "-c", "and then?"); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	res = e.run("", "compact", "-c")
	if res.code != 0 || !strings.Contains(res.stdout, "nothing to compact yet: the 2 messages a summary would replace") {
		t.Fatalf("two short turns: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d requests: a summary was asked for", n)
	}
	dry := e.run("", "compact", "-c", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, "the 2 messages a summary would replace") {
		t.Errorf("dry run: exit %d, %q %q", dry.code, dry.stdout, dry.stderr)
	}
}

// TestE2ERunShowsAFailedMention: a mention that cannot be attached (a
// missing file, a path outside the directory that headless mode does not
// allow) was told to the model but not to the user (hardening 2, item
// 9b). The run goes on, and the user sees each on stderr (text) or as an
// attachment_error event (JSON).
func TestE2ERunShowsAFailedMention(t *testing.T) {
	e := newEnv(t, pt.Text("no such file, it seems"), pt.Text("again"))
	res := e.run("", "run", "explain @missing.go and @../outside.txt please")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"@missing.go: not attached:", "@../outside.txt: not attached:"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(res.stdout, "not attached") {
		t.Errorf("the warning went to stdout: %q", res.stdout)
	}
	if got := lastUser(e.srv.Requests()[0]); !strings.Contains(got, "could not be attached") {
		t.Errorf("the model was not told: %q", got)
	}

	js := e.run("", "run", "--format", "json", "-c", "look at @missing.go")
	if js.code != 0 {
		t.Fatalf("json: exit %d: %s", js.code, js.stderr)
	}
	found := false
	for _, line := range strings.Split(js.stdout, "\n") {
		if strings.Contains(line, `"type":"attachment_error"`) && strings.Contains(line, `"path":"missing.go"`) && strings.Contains(line, `"error":`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no attachment_error event:\n%s", js.stdout)
	}
}
