package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// initBytesPerPackage bounds what one package of this module allocates
// while the process initialises, before main: a few small tables, no
// compiled regexps, no parsed files (issue 36: every start pays for every
// package's init, `agent run` included). A package that needs more
// builds it on first use (sync.OnceValue), as the regexps do.
const initBytesPerPackage = 8 << 10

// TestE2EInitAllocatesLittle runs the binary with GODEBUG=inittrace=1
// and checks that no package of this module allocates more than
// initBytesPerPackage in its init, and the module's packages together
// not more than 4 times that. The trace's byte counts are the runtime's
// and do not vary with the machine's load.
func TestE2EInitAllocatesLittle(t *testing.T) {
	cmd := exec.Command(agentBin, "--version")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent --version: %v: %s", err, out)
	}
	const module = "github.com/ctxloop/agent/"
	total, seen := 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		// init github.com/ctxloop/agent/internal/x @1.2 ms, 0.01 ms clock, 512 bytes, 3 allocs
		var pkg, at, clock string
		var bytes, allocs int
		if _, err := fmt.Sscanf(line, "init %s @%s ms, %s ms clock, %d bytes, %d allocs", &pkg, &at, &clock, &bytes, &allocs); err != nil {
			continue
		}
		seen++
		if pkg != "main" && !strings.HasPrefix(pkg, module) {
			continue
		}
		total += bytes
		if bytes > initBytesPerPackage {
			t.Errorf("%s allocates %d bytes (%d allocations) at init, want ≤ %d: build it on first use", pkg, bytes, allocs, initBytesPerPackage)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace in the output:\n%s", out)
	}
	if total > 4*initBytesPerPackage {
		t.Errorf("the module's packages allocate %d bytes at init, want ≤ %d", total, 4*initBytesPerPackage)
	}
}
