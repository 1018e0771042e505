package tools

// Process handling of bash, the contract:
//
//   - `bash -c COMMAND` runs in the session's directory with stdin from
//     /dev/null, in its own process group; stdout and stderr share one pipe,
//     so they interleave as produced.
//   - bash dies with the agent (a parent-death signal), and the caller
//     learns its process group through Call.Started: see process.go.
//   - Timeout or cancel: SIGTERM to the group, SIGKILL after 2 s if bash has
//     not exited.
//   - When bash exits (any way), processes it left in its group (background
//     jobs, `cmd &`) are stopped too: after a short grace for their output
//     to reach the pipe, SIGTERM to the group; SIGKILL once the output pipe
//     closes or 2 s pass. A background job holding the pipe therefore cannot
//     hang the tool, and no process of the call outlives it. (A process that
//     escapes the group, e.g. with setsid, is not ours to kill; if it holds
//     the pipe we stop reading after the SIGKILL grace.)
//   - Memory is bounded whatever the command prints: see outputCapture.
//   - The environment is the agent's minus its secrets (secrets.Environ),
//     and the output is redacted as it is read, before anything keeps it
//     (memory, the saved file, progress reports): see redactor.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/procguard"
	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/secrets"
)

const (
	killGrace       = 2 * time.Second        // SIGTERM → SIGKILL
	leftoverGrace   = 100 * time.Millisecond // bash exited: let background output drain
	pipeCloseGrace  = 500 * time.Millisecond // after SIGKILL: stop waiting for the pipe
	bashResultSlack = 8                      // lines kept free for markers under MaxResultLines
)

type bashTool struct{}

type bashInput struct {
	Command  string   `json:"command"`
	TimeoutS *float64 `json:"timeout_s"`
	// Background: see bash_background.go.
	Background bool `json:"background"`
}

func (bashTool) Name() string   { return "bash" }
func (bashTool) ReadOnly() bool { return false }

func (bashTool) Description() string {
	return `Run a shell command with bash -c in the session's directory and return its output (stdout and stderr interleaved) and exit code.

Use it for builds, tests, git, package managers and other programs. Prefer the read, grep, glob, ls, edit and write tools over cat, grep, find, ls, sed or echo >: they are faster, bounded and tracked.

- There is no stdin: interactive commands fail or wait forever (use flags like --yes, -y, --no-pager).
- Default timeout 120 s; pass timeout_s for longer commands (at most 600 s). On timeout the command and its children are killed.
- cmd & is stopped when the command returns; for a server use background: true.
- Long output keeps the beginning and the end (about 30000 characters); the middle is cut, and the full output is saved to a file whose path is given, to read with read (offset/limit) or search with grep.
- Each call is a new shell: cd and exported variables do not carry over (use cd dir && cmd).`
}

func (bashTool) Parameters() json.RawMessage { return bashParameters() }

// bashParameters is built once: every request carries it.
var bashParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "command", typ: "string", required: true, description: "The command to run, e.g. \"go test ./...\"."},
		param{name: "timeout_s", typ: "number", minimum: minimum(0), description: "Timeout in seconds (default 120, at most 600)."},
		param{name: "background", typ: "boolean", description: "Return an id at once."},
	)
})

func (bashTool) title(_ *Env, input json.RawMessage) string {
	var in bashInput
	if decodeInput(input, &in) != nil {
		return ""
	}
	if in.Background { // the permission dialog and the card say so
		return "bash (background): " + oneLine(in.Command, 80)
	}
	return "bash: " + oneLine(in.Command, 80)
}

func (t bashTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	var in bashInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	title := t.title(env, call.Input)
	if strings.TrimSpace(in.Command) == "" {
		return errorResult("bash", "command is empty: give the shell command to run"), nil
	}
	if in.Background {
		return runBackground(ctx, env, call, in.Command, title), nil
	}
	lim := env.limits()
	timeout := lim.BashTimeout
	var note string
	if in.TimeoutS != nil && *in.TimeoutS > 0 {
		timeout = time.Duration(*in.TimeoutS * float64(time.Second))
		if timeout > lim.BashMaxTimeout {
			note = fmt.Sprintf("[timeout_s %g is above the maximum; using %s]\n", *in.TimeoutS, lim.BashMaxTimeout)
			timeout = lim.BashMaxTimeout
		}
	}

	if res, ok := runInTerminal(ctx, env, call, in.Command, timeout, title, note); ok { // bash_terminal.go
		return res, nil
	}
	pol := sandboxPolicy(env)
	res := t.runCommand(ctx, env, call, in.Command, pol, timeout, title, note)
	return sandboxOutcome(ctx, env, call, pol, res, func() Result { // sandboxed.go
		return t.runCommand(ctx, env, call, in.Command, sandbox.Policy{Mode: sandbox.ModeOff}, timeout, title, note)
	}), nil
}

// runCommand runs command under the sandbox policy pol and makes its result.
func (bashTool) runCommand(ctx context.Context, env *Env, call Call, command string, pol sandbox.Policy, timeout time.Duration, title, note string) Result {
	lim := env.limits()
	run, err := startCommand(env, command, pol)
	if err != nil {
		return errorResult(title, "bash: cannot start the command: %v", err)
	}
	defer run.cleanup()
	if call.Started != nil {
		call.Started(run.group)
	}
	capture := newOutputCapture(lim.BashMaxOutputChars, lim.BashMaxOutputChars, func() (*os.File, error) {
		return env.saver().Create(call.ID)
	}).withFileMax(lim.SavedOutputMaxBytes)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		readOutput(run.pipe, capture, env.Secrets)
	}()
	progressDone := make(chan struct{})
	if call.Progress != nil {
		go reportProgress(capture, call.Progress, readDone, progressDone)
	} else {
		close(progressDone)
	}
	outcome := run.wait(ctx, timeout, capture.capped, readDone)
	<-progressDone
	savedPath := capture.closeFile()

	return bashResult(env, call, title, capture, outcome, savedPath, timeout, note)
}

// bashRun is a started command.
type bashRun struct {
	cmd     *exec.Cmd
	pipe    *os.File
	pgid    int
	group   ProcessGroup // read before bash can be reaped
	exited  chan struct{}
	waitErr error
	start   time.Time
	cleanup func() // removes the sandbox's temp directory once bash is done
}

func startCommand(env *Env, command string, pol sandbox.Policy) (*bashRun, error) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = env.Dir
	cmd.Stdin = nil // /dev/null
	// A session of its own (and so a group, pgid = pid): no controlling
	// terminal, so a command that asks the terminal for input (ssh, sudo,
	// a credential helper: /dev/tty) fails at once instead of waiting for
	// a user who is not there, or fighting the chat for the keyboard.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	setParentDeath(cmd.SysProcAttr)
	cmd.Env = append(secrets.Environ(nil, nil, env.Secrets...), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	// The one place a command is confined: see internal/sandbox.
	cleanup, err := sandbox.Wrap(cmd, pol)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		cleanup()
		return nil, err
	}
	cmd.Stdout = pw
	cmd.Stderr = pw
	r := &bashRun{cmd: cmd, pipe: pr, exited: make(chan struct{}), start: time.Now(), cleanup: cleanup}
	started := make(chan error, 1)
	go func() {
		// The parent-death signal fires when the thread that forked
		// dies: hold this thread until bash has exited.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// Nor may bash, even as root, read the agent's memory.
		procguard.DropPtraceForChildren()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		// The group's description (its leader's start time) is read
		// before Wait can reap a command that exits at once.
		r.group = processGroupOf(cmd.Process.Pid)
		started <- nil
		r.waitErr = cmd.Wait()
		close(r.exited)
	}()
	err = <-started
	pw.Close() // the children hold the write end now
	if err != nil {
		pr.Close()
		cleanup()
		return nil, err
	}
	r.pgid = cmd.Process.Pid
	return r, nil
}

// outcome is how a command ended.
type outcome struct {
	exitCode  int
	signal    string // set when bash was killed by a signal
	timedOut  bool
	cancelled bool
	capped    bool // the saved output reached its cap
	duration  time.Duration
}

// wait waits for bash to exit, the timeout, the output's cap or ctx,
// stopping the process group as the contract above says, then waits for
// the output reader.
func (r *bashRun) wait(ctx context.Context, timeout time.Duration, capped, readDone <-chan struct{}) outcome {
	var o outcome
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-r.exited:
	case <-timer.C:
		o.timedOut = true
		r.stopGroup()
	case <-ctx.Done():
		o.cancelled = true
		r.stopGroup()
	case <-capped:
		o.capped = true
		r.stopGroup()
	}
	o.duration = time.Since(r.start)
	r.stopLeftovers(readDone)
	r.pipe.Close()

	o.exitCode = 0
	if r.waitErr != nil {
		var exitErr *exec.ExitError
		if errors.As(r.waitErr, &exitErr) {
			o.exitCode = exitErr.ExitCode()
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				o.signal = signalName(ws.Signal())
				o.exitCode = 128 + int(ws.Signal())
			}
		} else {
			o.exitCode = -1
		}
	}
	return o
}

// stopGroup terminates the whole group: SIGTERM, then SIGKILL if bash has
// not exited within killGrace. It returns once bash has exited.
func (r *bashRun) stopGroup() {
	syscall.Kill(-r.pgid, syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(killGrace):
		syscall.Kill(-r.pgid, syscall.SIGKILL)
		<-r.exited
	}
}

// stopLeftovers runs once bash has exited: it stops what bash left running
// in its group and waits for the output reader to finish.
func (r *bashRun) stopLeftovers(readDone <-chan struct{}) {
	select {
	case <-readDone:
	case <-time.After(leftoverGrace):
	}
	if syscall.Kill(-r.pgid, syscall.SIGTERM) != nil {
		// ESRCH: nothing left in the group.
		r.waitReader(readDone)
		return
	}
	select {
	case <-readDone:
	case <-time.After(killGrace):
	}
	syscall.Kill(-r.pgid, syscall.SIGKILL)
	r.waitReader(readDone)
}

// waitReader waits for the reader to reach EOF; a pipe still held open by a
// process outside the group is closed under it after pipeCloseGrace.
func (r *bashRun) waitReader(readDone <-chan struct{}) {
	select {
	case <-readDone:
	case <-time.After(pipeCloseGrace):
		r.pipe.Close()
		<-readDone
	}
}

func bashResult(env *Env, call Call, title string, c *outputCapture, o outcome, savedPath string, timeout time.Duration, note string) Result {
	lim := env.limits()
	maxLines := max(lim.MaxResultLines-bashResultSlack, 10)
	maxBytes := lim.BashMaxOutputChars

	var out, raw string
	truncated := false
	if !c.spilled {
		raw = string(c.all)
		clean := Sanitize(raw)
		head, tail, cut := truncate.SplitHeadTail(clean, maxLines, maxBytes)
		out = clean
		if cut != (truncate.Cut{}) {
			truncated = true
			if p, err := env.saver().SaveString(call.ID, raw); err == nil {
				savedPath = p
			}
			out = truncate.JoinHeadTail(head, tail, cutMarker(cut, int(c.lines()), savedPath, false))
		}
	} else {
		truncated = true
		hl, tl := (maxLines+1)/2, maxLines/2
		hb, tb := (maxBytes+1)/2, maxBytes/2
		head, _ := truncate.Apply(Sanitize(string(wholeLinesHead(c.head))), hl, hb)
		tail, _ := truncate.Tail(Sanitize(string(wholeLinesTail(c.tail.bytes()))), tl, tb)
		cut := truncate.Cut{
			Lines: max(int(c.lines())-truncate.CountLines(head)-truncate.CountLines(tail), 0),
			Bytes: max(int(c.total)-len(head)-len(tail), 0),
		}
		out = truncate.JoinHeadTail(head, tail, cutMarker(cut, int(c.lines()), savedPath, o.capped))
	}

	status := fmt.Sprintf("[exit code %d]", o.exitCode)
	switch {
	case o.timedOut:
		status = fmt.Sprintf("[timed out after %s: the command and its process group were killed; pass a larger timeout_s (at most %s) if it needs longer]", roundDuration(timeout), lim.BashMaxTimeout)
	case o.cancelled:
		// The process group was killed; the output so far stays, under
		// the note every interrupted call carries.
		status = message.InterruptedOutput
	case o.capped:
		status = fmt.Sprintf("[%s (its process group was killed), exit code %d]", cappedNote(lim.SavedOutputMaxBytes), o.exitCode)
	case o.signal != "":
		status = fmt.Sprintf("[killed by %s, exit code %d]", o.signal, o.exitCode)
	}
	out = joinStatus(note+out, status)
	if raw != "" || !c.spilled {
		raw = joinStatus(note+raw, status)
	}

	meta := map[string]any{
		"exit_code":   o.exitCode,
		"duration_ms": o.duration.Milliseconds(),
		"lines":       c.lines(),
		"bytes":       c.total,
		"timeout_ms":  timeout.Milliseconds(),
	}
	if o.timedOut {
		meta["timed_out"] = true
	}
	if o.cancelled {
		meta["cancelled"] = true
	}
	if o.capped {
		meta["output_capped"] = true
	}
	if c.fileErr != nil {
		meta["save_error"] = c.fileErr.Error()
	}
	res := Result{
		Output:         out,
		Title:          title,
		Metadata:       meta,
		IsError:        o.exitCode != 0 || o.timedOut || o.cancelled || o.capped,
		Truncated:      truncated,
		FullOutputPath: savedPath,
	}
	if len(raw) <= MaxRawOutputBytes {
		res.RawOutput = raw
	}
	return res
}

func joinStatus(out, status string) string {
	if out == "" {
		return status
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + status
}

// cutMarker is the line in place of the middle of a long output; capped
// says the saved file holds only the head and the tail of it.
func cutMarker(cut truncate.Cut, totalLines int, path string, capped bool) string {
	what := fmt.Sprintf("%d lines (%s)", cut.Lines, truncate.FormatBytes(int64(cut.Bytes)))
	if path == "" {
		return fmt.Sprintf("... [%s cut from the middle; the full output could not be saved] ...", what)
	}
	if capped {
		return fmt.Sprintf("... [%s cut from the middle; more of the output (its beginning and its end) is saved at %s: read it with read (offset/limit) or search it with grep] ...", what, path)
	}
	return fmt.Sprintf("... [%s cut from the middle; the full output (%d lines) is saved at %s: read it with read (offset/limit) or search it with grep] ...", what, totalLines, path)
}

// wholeLinesHead drops a partial last line, unless the head is one line.
func wholeLinesHead(b []byte) []byte {
	if i := lastIndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// wholeLinesTail drops a partial first line, unless nothing would remain.
func wholeLinesTail(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			if i+1 < len(b) {
				return b[i+1:]
			}
			break
		}
	}
	return b
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return fmt.Sprintf("signal %d", int(s))
}

func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// oneLine shortens s to its first line and at most n characters, for
// titles.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = strings.TrimSpace(s[:i]), true
	}
	if r := []rune(s); len(r) > n {
		s, more = string(r[:n]), true
	}
	if more {
		s += "…"
	}
	return s
}
