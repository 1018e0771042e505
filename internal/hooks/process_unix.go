//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the hook in a process group of its own and makes the
// command's cancellation kill the whole group, so a hook's children die
// with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
