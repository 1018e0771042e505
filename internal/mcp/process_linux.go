package mcp

import "syscall"

// setParentDeath makes the kernel kill a server when the agent dies.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
