package main

import (
	"regexp"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EStartupTrace: with AGENT_TRACE_STARTUP=1 a headless run prints
// every start-up phase once, in order on the main path, each with a
// duration and the time since the process started; without it, nothing.
func TestE2EStartupTrace(t *testing.T) {
	e := newEnv(t, pt.Text("traced answer"), pt.Text("untraced answer"))
	e.vars = append(e.vars, "AGENT_TRACE_STARTUP=1")
	res := e.run("", "run", "hi")
	if res.code != 0 || strings.TrimSpace(res.stdout) != "traced answer" {
		t.Fatalf("exit %d, stdout %q: %s", res.code, res.stdout, res.stderr)
	}
	line := regexp.MustCompile(`^startup: (.+) (\d+\.\d)ms \(at (\d+\.\d)ms(, rss \d+\.\d\+\d+\.\dMiB)?\)$`)
	seen := map[string]int{}
	var mainPath []string
	for _, l := range strings.Split(strings.TrimSpace(res.stderr), "\n") {
		m := line.FindStringSubmatch(l)
		if strings.HasPrefix(l, "agent: note: an OS sandbox is available") {
			continue // the first run's one note (sandbox.Announcement)
		}
		if m == nil {
			t.Errorf("stderr line %q is not a phase", l)
			continue
		}
		seen[m[1]]++
		if m[1] != "prompt env" { // it runs beside the main path
			mainPath = append(mainPath, m[1])
		}
	}
	want := []string{"main", "command", "config", "open db", "session", "first request", "first byte", "answer", "done"}
	if strings.Join(mainPath, ",") != strings.Join(want, ",") {
		t.Errorf("main-path phases %q, want %q", mainPath, want)
	}
	for _, p := range append(want, "prompt env") {
		if seen[p] != 1 {
			t.Errorf("phase %q printed %d times, want once", p, seen[p])
		}
	}

	e.without("AGENT_TRACE_STARTUP")
	res = e.run("", "run", "again")
	if res.code != 0 || res.stderr != "" {
		t.Errorf("untraced run: exit %d, stderr %q", res.code, res.stderr)
	}
}
