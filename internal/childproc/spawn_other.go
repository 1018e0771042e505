//go:build !linux

package childproc

import "os/exec"

// recordable: nothing describes a group here.
const recordable = false

func start(cmd *exec.Cmd) error { return cmd.Start() }
