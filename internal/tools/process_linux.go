package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeath makes the kernel SIGKILL the child when the thread that
// started it dies.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// processGroupOf describes the group led by pid, a command just started.
func processGroupOf(pid int) ProcessGroup {
	g := ProcessGroup{PGID: pid, BootID: bootID()}
	if p, ok := readProcess(pid); ok {
		g.StartTicks = p.startTicks
	}
	return g
}

// listProcesses reads every process from /proc, and the boot id.
func listProcesses() ([]processInfo, string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, "", err
	}
	var procs []processInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProcess(pid); ok {
			procs = append(procs, p)
		}
	}
	return procs, bootID(), nil
}

// readProcess parses /proc/PID/stat; false when the process is gone.
func readProcess(pid int) (processInfo, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return processInfo{}, false
	}
	return parseStat(pid, b)
}

// parseStat reads state, pgrp and starttime from a /proc/PID/stat line.
// The command name may hold spaces and parentheses: fields are counted
// from the last ')'.
func parseStat(pid int, b []byte) (processInfo, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return processInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), f[2] field 5 (pgrp), f[19] field 22 (starttime).
	if len(f) < 20 {
		return processInfo{}, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return processInfo{}, false
	}
	return processInfo{pid: pid, pgrp: pgrp, startTicks: start, zombie: f[0] == "Z" || f[0] == "X"}, true
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
