//go:build !unix

package hooks

import "os/exec"

// ownGroup is a no-op where there are no process groups: cancellation
// kills the shell only.
func ownGroup(*exec.Cmd) {}
