//go:build !linux

package tools

import (
	"errors"
	"syscall"
)

// Without /proc and Pdeathsig, a crashed agent's tool groups cannot be
// recognised later: nothing is recorded and nothing is stopped.

func setParentDeath(*syscall.SysProcAttr) {}

func processGroupOf(pid int) ProcessGroup { return ProcessGroup{PGID: pid} }

func listProcesses() ([]processInfo, string, error) {
	return nil, "", errors.New("listing processes is not supported on this system")
}
