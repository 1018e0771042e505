package tools

// Background processes of bash, the contract:
//
//   - bash with background: true starts the command exactly as a
//     foreground one (startCommand: one function, which a sandbox wraps for
//     both), registers it in Env.Jobs under an id (bg1, …) and returns at
//     once: after the command exits or bgFirstWait passes, whichever comes
//     first, with the id and the output so far.
//   - The output goes, redacted, to a file (the job's log, under
//     Env.OutputDir), never to the conversation by itself: only bash_output
//     brings it in, from a byte offset (since; by default where the last
//     read ended), with bash's head/tail truncation; the log is the saved
//     full output. The log is capped like a saved output
//     (Limits.SavedOutputMaxBytes): at the cap the process group is stopped,
//     as bash stops a flooding command, and the log keeps what came before.
//   - The process group is recorded (Env.Groups) while it runs, so the next
//     agent to start stops what a killed agent left; and bash itself has
//     the parent-death signal, as in the foreground.
//   - When bash exits, what it left in its group is stopped as in the
//     foreground (stopLeftovers). bash_kill, and jobs.Table's Kill and
//     KillAll, stop the group: SIGTERM, SIGKILL after killGrace.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/jobs"
)

// bgFirstWait bounds how long bash with background: true waits for the
// command's first output (or its exit) before it returns.
const bgFirstWait = time.Second

// GroupRecorder records a process group while it runs, for the next start
// to stop after a crash (childproc.Registry).
type GroupRecorder interface {
	Record(g ProcessGroup, command string) (release func())
}

// runBackground is bash's run with background: true.
func runBackground(ctx context.Context, env *Env, call Call, command, title string) Result {
	id, err := env.Jobs.Reserve()
	if err != nil {
		return errorResult(title, "bash: cannot start a background process: %v", err)
	}
	lim := env.limits()
	log, err := newBgLog(env, call.ID, lim.SavedOutputMaxBytes)
	if err != nil {
		env.Jobs.Release(id)
		return errorResult(title, "bash: cannot start a background process: its output file: %v", err)
	}
	run, err := startCommand(env, command, sandboxPolicy(env)) // confined as a foreground command is
	if err != nil {
		env.Jobs.Release(id)
		log.remove()
		return errorResult(title, "bash: cannot start the command: %v", err)
	}
	release := func() {}
	if env.Groups != nil {
		release = env.Groups.Record(run.group, "bash (background): "+oneLine(command, 80))
	}
	p := &bgProcess{run: run, log: log, done: make(chan struct{})}
	go p.watch(env.Secrets, release)
	env.Jobs.Add(&jobs.Job{ID: id, Command: command, Started: run.start, Process: p, Data: log})

	timer := time.NewTimer(bgFirstWait)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
	case <-ctx.Done():
	}
	j, err := env.Jobs.Get(id)
	if err != nil { // killed meanwhile
		return errorResult(title, "bash: the background process %s was stopped before it could report", id)
	}
	res := jobOutput(env, j, -1)
	res.Title = title
	res.Output = fmt.Sprintf("Started background process %s (process group %d).\n%s", id, run.pgid, res.Output)
	res.Metadata["background_id"] = id
	return res
}

// bgProcess is a background bash: the jobs.Process of a job.
type bgProcess struct {
	run    *bashRun
	log    *bgLog
	done   chan struct{}
	status string // set before done is closed
	once   sync.Once
}

func (p *bgProcess) Done() <-chan struct{} { return p.done }
func (p *bgProcess) Status() string        { return p.status }

// Stop stops the process group and waits for the job to end.
func (p *bgProcess) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.run.stopGroup()
	<-p.done
}

// watch reads the output into the log until the process ends, stops the
// group at the log's cap, and ends the job.
func (p *bgProcess) watch(secretValues []string, release func()) {
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		readOutput(p.run.pipe, p.log, secretValues)
	}()
	capped := false
	select {
	case <-p.run.exited:
	case <-p.log.capped:
		capped = true
		p.run.stopGroup()
	}
	p.run.stopLeftovers(readDone)
	p.run.pipe.Close()
	p.log.closeWriter()
	p.run.cleanup() // the sandbox's temp directory
	release()
	o := exitOutcome(p.run.waitErr)
	switch {
	case capped:
		p.status = fmt.Sprintf("%s (its process group was killed), exit code %d", cappedNote(p.log.max), o.exitCode)
	case o.signal != "":
		p.status = fmt.Sprintf("killed by %s, exit code %d", o.signal, o.exitCode)
	default:
		p.status = fmt.Sprintf("exit code %d", o.exitCode)
	}
	close(p.done)
}

// exitOutcome reads bash's exit code and signal from Wait's error.
func exitOutcome(waitErr error) outcome {
	var o outcome
	if waitErr == nil {
		return o
	}
	var exitErr *exec.ExitError
	if !errors.As(waitErr, &exitErr) {
		o.exitCode = -1
		return o
	}
	o.exitCode = exitErr.ExitCode()
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.signal = signalName(ws.Signal())
		o.exitCode = 128 + int(ws.Signal())
	}
	return o
}

// bgLog is a background process's output: a file capped at max bytes.
type bgLog struct {
	path string
	max  int64

	mu      sync.Mutex
	f       *os.File // nil once closed
	size    int64    // bytes in the file
	dropped int64    // bytes past the cap
	cursor  int64    // where the last read ended
	capped  chan struct{}
}

func newBgLog(env *Env, callID string, maxBytes int64) (*bgLog, error) {
	var f *os.File
	var err error
	if env.OutputDir != "" {
		f, err = env.saver().Create(callID + "-background")
	} else {
		f, err = os.CreateTemp("", "agent-background-*.txt")
	}
	if err != nil {
		return nil, err
	}
	return &bgLog{path: f.Name(), max: maxBytes, f: f, capped: make(chan struct{})}, nil
}

// Write appends p up to the cap; it never fails.
func (l *bgLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if l.f == nil || l.size >= l.max {
		l.dropped += int64(n)
		return n, nil
	}
	if room := l.max - l.size; int64(len(p)) > room {
		l.dropped += int64(len(p)) - room
		p = p[:room]
	}
	w, _ := l.f.Write(p)
	l.size += int64(w)
	if l.size >= l.max {
		close(l.capped)
	}
	return n, nil
}

func (l *bgLog) closeWriter() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

func (l *bgLog) remove() {
	l.closeWriter()
	os.Remove(l.path)
}

// window returns the bytes [from, end) to read next, from since (or the
// cursor when since < 0), and moves the cursor to end.
func (l *bgLog) window(since int64) (from, end int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	end = l.size
	from = since
	if since < 0 {
		from = l.cursor
	}
	if from > end {
		return 0, 0, fmt.Errorf("since %d is past the end of the output (%d bytes so far)", from, end)
	}
	l.cursor = end
	return from, end, nil
}

// jobOutput is bash_output's result for j: its output from since (-1: the
// cursor) to now, truncated like bash's, and its state.
func jobOutput(env *Env, j *jobs.Job, since int64) Result {
	log := j.Data.(*bgLog)
	running := j.Running() // read before the window: what follows an exit is all there
	from, end, err := log.window(since)
	if err != nil {
		return errorResult("bash_output "+j.ID, "bash_output: %v", err)
	}
	out, lines, truncated := readWindow(env, log.path, from, end)
	var status string
	if running {
		status = fmt.Sprintf("[%s is running; this is its output from byte %d to %d; call bash_output again for what follows (since %d), bash_kill to stop it]", j.ID, from, end, end)
	} else {
		status = fmt.Sprintf("[%s has exited (%s); this is its output from byte %d to %d]", j.ID, j.Process.Status(), from, end)
	}
	if from == end {
		out = "(no new output)"
	}
	meta := map[string]any{
		"background_id": j.ID,
		"running":       running,
		"since":         from,
		"next_since":    end,
		"lines":         lines,
		"bytes":         end - from,
	}
	if !running {
		meta["status"] = j.Process.Status()
	}
	return Result{
		Output:         joinStatus(out, status),
		Title:          "bash_output " + j.ID + ": " + oneLine(j.Command, 60),
		Metadata:       meta,
		Truncated:      truncated,
		FullOutputPath: log.path,
	}
}

// readWindow reads [from, end) of the file at path with bash's head/tail
// truncation; a cut names path as the full output. Memory is bounded by
// the truncation limits, whatever the window's size.
func readWindow(env *Env, path string, from, end int64) (out string, lines int64, truncated bool) {
	if from >= end {
		return "", 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("[the output file %s cannot be read: %v]", path, err), 0, false
	}
	defer f.Close()
	lim := env.limits()
	maxLines := max(lim.MaxResultLines-bashResultSlack, 10)
	maxBytes := lim.BashMaxOutputChars
	// The window goes through a capture as a command's output does: kept
	// whole while small, head and a ring of the tail beyond.
	c := newOutputCapture(maxBytes, maxBytes, func() (*os.File, error) { return nil, errNoSpill })
	io.Copy(c, io.NewSectionReader(f, from, end-from))
	lines = c.lines()
	marker := func(cut truncate.Cut) string {
		return fmt.Sprintf("... [%d lines (%s) cut from the middle; the process's whole output is saved at %s (this part: bytes %d to %d): read it with read (offset/limit) or search it with grep] ...",
			cut.Lines, truncate.FormatBytes(int64(cut.Bytes)), path, from, end)
	}
	if !c.spilled {
		clean := Sanitize(string(c.all))
		head, tail, cut := truncate.SplitHeadTail(clean, maxLines, maxBytes)
		if cut == (truncate.Cut{}) {
			return clean, lines, false
		}
		return truncate.JoinHeadTail(head, tail, marker(cut)), lines, true
	}
	hl, tl := (maxLines+1)/2, maxLines/2
	hb, tb := (maxBytes+1)/2, maxBytes/2
	head, _ := truncate.Apply(Sanitize(string(wholeLinesHead(c.head))), hl, hb)
	tail, _ := truncate.Tail(Sanitize(string(wholeLinesTail(c.tail.bytes()))), tl, tb)
	cut := truncate.Cut{
		Lines: max(int(lines)-truncate.CountLines(head)-truncate.CountLines(tail), 0),
		Bytes: max(int(c.total)-len(head)-len(tail), 0),
	}
	return truncate.JoinHeadTail(head, tail, marker(cut)), lines, true
}

var errNoSpill = errors.New("kept in the process's output file")

// bashOutputTool is bash_output{id, since?}.
type bashOutputTool struct{}

type bashOutputInput struct {
	ID    string `json:"id"`
	Since *int64 `json:"since"`
}

func (bashOutputTool) Name() string   { return "bash_output" }
func (bashOutputTool) ReadOnly() bool { return true }

func (bashOutputTool) Description() string {
	return `New output of a background bash since the last read (or byte offset since), and whether it still runs.`
}

var bashOutputParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "id", typ: "string", required: true},
		param{name: "since", typ: "integer", minimum: minimum(0), description: "A result's next_since"},
	)
})

func (bashOutputTool) Parameters() json.RawMessage { return bashOutputParameters() }

func (bashOutputTool) Run(_ context.Context, env *Env, call Call) (Result, error) {
	var in bashOutputInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	j, err := env.Jobs.Get(in.ID)
	if err != nil {
		return errorResult("bash_output "+in.ID, "bash_output: %v", err), nil
	}
	since := int64(-1)
	if in.Since != nil {
		since = *in.Since
	}
	return jobOutput(env, j, since), nil
}

// bashKillTool is bash_kill{id}.
type bashKillTool struct{}

type bashKillInput struct {
	ID string `json:"id"`
}

func (bashKillTool) Name() string   { return "bash_kill" }
func (bashKillTool) ReadOnly() bool { return false }

func (bashKillTool) Description() string {
	return `Stop a background bash and its whole process group; returns the output it printed since the last read.`
}

var bashKillParameters = sync.OnceValue(func() json.RawMessage {
	return objectSchema(
		param{name: "id", typ: "string", required: true},
	)
})

func (bashKillTool) Parameters() json.RawMessage { return bashKillParameters() }

func (bashKillTool) Run(_ context.Context, env *Env, call Call) (Result, error) {
	var in bashKillInput
	if err := decodeInput(call.Input, &in); err != nil {
		return Result{}, err
	}
	j, err := env.Jobs.Kill(in.ID)
	if err != nil {
		return errorResult("bash_kill "+in.ID, "bash_kill: %v", err), nil
	}
	res := jobOutput(env, j, -1)
	res.Title = "bash_kill " + j.ID + ": " + oneLine(j.Command, 60)
	res.Output = strings.Replace(res.Output, "["+j.ID+" has exited", "["+j.ID+" was stopped and has exited", 1)
	return res, nil
}
