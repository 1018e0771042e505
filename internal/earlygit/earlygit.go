// Package earlygit starts, while the program is still initialising its
// packages, the one child process a headless `agent run` waits for before
// its first request: the system prompt's `git status`. Package
// initialisation takes a few milliseconds on one core; git runs on the
// other meanwhile, and is done, or nearly, by the time the run needs it.
//
// Contract: its init starts git only when the command line is `agent
// [global flags] run …` (StatusArgs in the working directory, resolved as
// the commands resolve it, hardened by gitcmd and bounded by Timeout);
// any other command line starts nothing. Take hands that result to the
// first caller asking for the same directory and arguments, once; every
// other caller runs git itself. A result nobody takes is dropped: git only
// reads. TakeWithin bounds the wait: a repository too large for git to
// answer within it costs no more than the budget (ErrNotInTime).
package earlygit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/gitcmd"
)

// StatusArgs are the arguments of the system prompt's git status.
var StatusArgs = []string{"status", "--short", "--branch", "--ignore-submodules=dirty"}

// Timeout bounds a git status, early or not.
const Timeout = 2 * time.Second

// ValueFlags are the global flags that take a value as the next argument
// (cmd/agent's persistent flags; a test there keeps the list whole).
var ValueFlags = []string{"--model", "--base-url", "--data-dir", "--config"}

func init() {
	if !namesRun(os.Args[1:]) {
		return
	}
	dir, err := os.Getwd()
	if err != nil {
		return
	}
	if abs, err := filepath.EvalSymlinks(dir); err == nil {
		dir = abs
	}
	Start(dir, StatusArgs...)
}

// Start begins an early git run with args in dir, as init does for `agent
// run` (benchmarks and tests call it too); it replaces one not yet taken.
func Start(dir string, args ...string) {
	r := start(dir, args, gitcmd.Output)
	mu.Lock()
	early = r
	mu.Unlock()
}

// namesRun reports whether args (without the program's name) run the
// headless run command: the first argument that is neither a flag nor a
// global flag's value is "run".
func namesRun(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false
		case slices.Contains(ValueFlags, a):
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return a == "run"
		}
	}
	return false
}

// result is one git run started early.
type result struct {
	dir    string
	args   []string
	done   chan struct{}
	cancel context.CancelFunc // ends git (TakeWithin, past its budget)
	out    []byte
	err    error
}

var (
	mu    sync.Mutex
	early *result // nil: none started, or taken
)

// start runs git with args in dir in the background.
func start(dir string, args []string, run func(context.Context, string, ...string) ([]byte, error)) *result {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	r := &result{dir: dir, args: args, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(r.done)
		defer cancel()
		r.out, r.err = run(ctx, dir, args...)
	}()
	return r
}

// ErrNotInTime is TakeWithin's error when git did not end within the
// budget: the run was taken and stopped, and nobody runs it again.
var ErrNotInTime = errors.New("git did not answer in time")

// TakeWithin is Take that waits at most budget for the early run once it
// has one: past it, git is stopped and TakeWithin returns ok true with
// ErrNotInTime, so that the caller goes on without the status rather than
// running git again (a large repository's status costs what it walks).
func TakeWithin(ctx context.Context, budget time.Duration, dir string, args ...string) (out []byte, ok bool, err error) {
	r := take(dir, args)
	if r == nil {
		return nil, false, nil
	}
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case <-r.done:
		return r.out, true, r.err
	case <-timer.C:
		r.cancel()
		return nil, true, ErrNotInTime
	case <-ctx.Done():
		return nil, false, nil
	}
}

// take hands out the early run for dir and args, once.
func take(dir string, args []string) *result {
	mu.Lock()
	defer mu.Unlock()
	r := early
	if r == nil || r.dir != dir || !slices.Equal(r.args, args) {
		return nil
	}
	early = nil
	return r
}

// Take returns the result of the git run started early for dir with
// args, waiting for it to end, with ok true; the result is taken and the
// next caller gets ok false. With none started for the same directory and
// arguments, or ctx done first, ok is false and the caller runs git
// itself.
func Take(ctx context.Context, dir string, args ...string) (out []byte, ok bool, err error) {
	r := take(dir, args)
	if r == nil {
		return nil, false, nil
	}
	select {
	case <-r.done:
		return r.out, true, r.err
	case <-ctx.Done():
		return nil, false, nil
	}
}
