// Command agent is a terminal coding agent: a chat TUI (the root command)
// and headless commands for scripts (run, sessions, context, compact,
// inspect). See the README for set-up and DESIGN.md for the contract.
package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctxloop/agent/internal/procguard"
	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/startup"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// Exit codes of the contract.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks bad usage (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	startup.Mark("main") // the runtime's start and the packages' init
	// Started as the sandbox's network relay (a host allow-list), it runs
	// as that and exits; see internal/sandbox/relay.go.
	sandbox.RelayEntry()
	// Before anything starts a child: the agent's /proc entries are
	// closed to its children and the key is out of its initial
	// environment block.
	procguard.Harden()
	os.Exit(execute(os.Args[1:]))
}

// execute runs the command line and returns the exit code.
func execute(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	background.stop(2 * time.Second)
	startup.Mark("done")
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "agent:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "agent:", err)
	if isUsage(err) {
		return exitUsage
	}
	return exitFailure
}
