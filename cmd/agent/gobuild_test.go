package main

import (
	"os"
	"os/exec"
)

// goBuild is the one way the tests and benchmarks build a program of this
// module (the agent, and the floors it is measured against): as `make
// build` does, statically linked (CGO_ENABLED=0: net's resolver and
// os/user in pure Go, no ld.so, no libc), so that what they run and time
// is what a user builds, and the agent and its floors are built alike.
func goBuild(out, pkg string) *exec.Cmd {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
