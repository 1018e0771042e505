// Command rusage runs a command and reports its wall time and peak RSS,
// for benchmarks of whole programs (cmd/agent's start-up benchmarks).
//
//	rusage PROGRAM [ARGS...]
//
// The command's standard streams are this process's; when it has exited,
// one line goes to standard error:
//
//	rusage: wall_ns=12345678 cpu_ns=9876543 maxrss_kib=11264 exit=0
//
// (cpu_ns is user plus system time, which a busy machine disturbs less
// than wall time)
// and rusage exits with the command's status. Why a separate process: on
// Linux a child started with vfork (as Go's os/exec does) inherits its
// parent's peak RSS at exec, so a big test process would report its own
// footprint as the child's; this small program's is a few MiB.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rusage PROGRAM [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(1)
	}
	var maxRSS int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSS = ru.Maxrss // KiB on Linux
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	code := cmd.ProcessState.ExitCode()
	fmt.Fprintf(os.Stderr, "rusage: wall_ns=%d cpu_ns=%d maxrss_kib=%d exit=%d\n", wall.Nanoseconds(), cpu.Nanoseconds(), maxRSS, code)
	os.Exit(code)
}
