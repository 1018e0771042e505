package tools

// A tool's process group outlives a crash of the agent unless something
// stops it. Two mechanisms, the contract:
//
//   - bash gets a parent-death signal (Linux: SIGKILL when the thread that
//     started it dies). The command is started from a goroutine locked to
//     its OS thread until bash exits, so that the signal means "the agent
//     died", not "the Go runtime retired a thread". It covers bash itself;
//     its children and background jobs may outlive it.
//   - Call.Started hands the caller the command's ProcessGroup as soon as
//     it runs; the loop stores it with the tool part. After a crash, the
//     next Open calls StopProcessGroup for each running part left behind,
//     before marking it interrupted.
//
// A recorded group id may have been reused by the time it is stopped.
// StopProcessGroup kills only a group that is plausibly the one recorded:
// same boot, and either its leader is alive with the recorded start time,
// or (leader gone) every member started after the recorded leader did. A
// process that left the group (setsid) is not found this way.

import (
	"fmt"
	"syscall"
	"time"
)

// ProcessGroup identifies a tool command's process group across a restart
// of the agent.
type ProcessGroup struct {
	PGID int `json:"pgid"`
	// StartTicks is the leader's start time in clock ticks since boot
	// (field 22 of /proc/PID/stat); BootID names the boot. Both guard
	// against a reused id; zero when unknown.
	StartTicks uint64 `json:"start_ticks,omitempty"`
	BootID     string `json:"boot_id,omitempty"`
}

// DescribeGroup describes the group led by pid, a process just started in
// a group of its own (or any live process, for its start time), as
// StopProcessGroup needs it after a crash.
func DescribeGroup(pid int) ProcessGroup { return processGroupOf(pid) }

// processInfo is what StopProcessGroup needs to know of a process.
type processInfo struct {
	pid, pgrp  int
	startTicks uint64
	zombie     bool
}

// StopProcessGroup kills g's processes with SIGKILL if g is still a live
// group plausibly the one recorded, and waits up to a second for them to
// die. It reports whether it killed anything.
func StopProcessGroup(g ProcessGroup) (bool, error) {
	procs, bootID, err := listProcesses()
	if err != nil {
		return false, fmt.Errorf("stop process group %d: %w", g.PGID, err)
	}
	if !groupIsOurs(g, procs, bootID) {
		return false, nil
	}
	if err := syscall.Kill(-g.PGID, syscall.SIGKILL); err != nil {
		if err == syscall.ESRCH {
			return false, nil
		}
		return false, fmt.Errorf("stop process group %d: %w", g.PGID, err)
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs, _, err := listProcesses()
		if err != nil || len(liveMembers(g.PGID, procs)) == 0 {
			break
		}
	}
	return true, nil
}

// groupIsOurs decides whether the live processes of group g.PGID are the
// group that was recorded (see the contract above).
func groupIsOurs(g ProcessGroup, procs []processInfo, bootID string) bool {
	if g.PGID <= 1 || g.StartTicks == 0 {
		return false
	}
	if g.BootID != "" && bootID != "" && g.BootID != bootID {
		return false
	}
	members := liveMembers(g.PGID, procs)
	if len(members) == 0 {
		return false
	}
	for _, p := range members {
		if p.pid == g.PGID {
			return p.startTicks == g.StartTicks
		}
	}
	for _, p := range members {
		if p.startTicks < g.StartTicks {
			return false
		}
	}
	return true
}

// liveMembers are the processes of group pgid that are not zombies.
func liveMembers(pgid int, procs []processInfo) []processInfo {
	var out []processInfo
	for _, p := range procs {
		if p.pgrp == pgid && !p.zombie {
			out = append(out, p)
		}
	}
	return out
}
