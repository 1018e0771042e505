package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/startup"
)

// TestE2EInitPagesReleased: the binary's pages that the runtime's set-up
// and the packages' inits faulted in (11–12 MiB of a 32 MB binary before
// main) are given back as main starts (internal/initpages), so that a
// headless run's peak RSS is its own working set, not that plus every
// package's init code (issue 36 item 6: 21.2 → 18.7 MiB). The start-up
// trace reports the file-backed RSS at each phase: at "command" (the
// command line parsed) it must be well below what it was at "main".
func TestE2EInitPagesReleased(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux: /proc and madvise")
	}
	e := newEnv(t, pt.Text("Hello."))
	e.vars = append(e.vars, startup.EnvVar+"=1")
	res := e.run("", "run", "hi")
	if res.code != 0 {
		t.Fatalf("agent run: exit %d: %s", res.code, res.stderr)
	}
	fileMiB := map[string]float64{}
	for _, line := range strings.Split(res.stderr, "\n") {
		// startup: main 1.9ms (at 1.9ms, rss 1.8+11.4MiB)
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "startup: "), " ")
		_, rss, found := strings.Cut(rest, "rss ")
		if !ok || !found || !strings.HasPrefix(line, "startup: ") {
			continue
		}
		var anon, file float64
		if _, err := fmt.Sscanf(rss, "%f+%fMiB)", &anon, &file); err == nil {
			fileMiB[name] = file
		}
	}
	atMain, okMain := fileMiB["main"]
	atCommand, okCommand := fileMiB["command"]
	if !okMain || !okCommand {
		t.Fatalf("no file-backed RSS for the main and command phases in the trace:\n%s", res.stderr)
	}
	if atCommand > atMain-4 {
		t.Errorf("file-backed RSS %.1f MiB at main, %.1f MiB once the command line is parsed: the pages of the start-up were not given back (want ≥ 4 MiB less)", atMain, atCommand)
	}
}
