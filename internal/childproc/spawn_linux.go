package childproc

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/ctxloop/agent/internal/procguard"
)

// recordable: /proc describes groups here.
const recordable = true

// startReq asks the spawner to start cmd.
type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan startReq
)

// start starts cmd from the spawner thread, in a group of its own, with
// SIGKILL as its parent-death signal.
func start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	spawnOnce.Do(func() {
		spawnCh = make(chan startReq)
		go spawner()
	})
	req := startReq{cmd: cmd, done: make(chan error, 1)}
	spawnCh <- req
	return <-req.done
}

// spawner runs for the life of the process on a thread of its own, which
// therefore ends only when the process does.
func spawner() {
	runtime.LockOSThread() // never unlocked: the thread must not end
	procguard.DropPtraceForChildren()
	for req := range spawnCh {
		req.done <- req.cmd.Start()
	}
}
