package main

import (
	"debug/elf"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestBinariesAreStatic: the agent is linked statically (issue 36 item 6),
// by `make build` and by the tests and benchmarks that run it, and the
// floor the benchmarks compare it with is built the same way. A
// dynamically linked binary starts through ld.so, and libc's pages are
// resident in every run: 1.3 MiB of peak RSS (22.4 → 21.1 MiB) at no gain.
func TestBinariesAreStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ELF binaries")
	}
	bare := t.TempDir() + "/bare"
	if out, err := goBuild(bare, "github.com/ctxloop/agent/bench/bare").CombinedOutput(); err != nil {
		t.Fatalf("build bench/bare: %v: %s", err, out)
	}
	for _, bin := range []string{agentBin, bare} {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked (it has an interpreter, ld.so)", bin)
			}
		}
		f.Close()
	}
	make, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command(make, "-n", "build")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "go build") && !strings.Contains(line, "CGO_ENABLED=0") {
			t.Errorf("make build links with cgo: %s", line)
		}
	}
}
