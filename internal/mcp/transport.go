package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/secrets"
	"github.com/ctxloop/agent/internal/termsafe"
)

// stderrMaxBytes is how much of a stdio server's stderr is kept.
const stderrMaxBytes = 8 << 10

// terminateAfter is how long a stdio server has to exit once its stdin is
// closed, and then once it is sent SIGTERM.
const terminateAfter = 500 * time.Millisecond

// transport builds the transport of the server's entry.
func (sv *server) transport() (sdk.Transport, error) {
	if sv.spec.URL != "" {
		headers := make(http.Header, len(sv.spec.Headers))
		for k, v := range sv.spec.Headers {
			headers.Set(k, sv.expand(v))
		}
		return &sdk.StreamableClientTransport{
			Endpoint:             sv.spec.URL,
			HTTPClient:           &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers, tasks: &taskOnly{}}},
			MaxRetries:           -1, // a failed request is the call's error; the next call tries again
			DisableStandaloneSSE: true,
		}, nil
	}
	cmd := exec.Command(sv.spec.Command, sv.spec.Args...)
	cmd.Dir = sv.s.opt.Dir
	cmd.Env = secrets.Environ(nil, nil, sv.s.opt.Secrets...)
	keys := make([]string, 0, len(sv.spec.Env))
	for k := range sv.spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if secretName(k) {
			continue
		}
		cmd.Env = append(cmd.Env, k+"="+sv.expand(sv.spec.Env[k]))
	}
	// This process's stderr only: what an earlier one wrote is dropped,
	// so that its errors quote this one.
	stderr := sv.stderr.restart()
	cmd.Stderr = stderr
	cmd.WaitDelay = closeGrace // a grandchild holding stderr open does not hold Wait
	// Its own process group and parent-death signal: childproc.
	if cmd.Err != nil {
		return nil, fmt.Errorf("start %s: %w", sv.spec.Command, cmd.Err)
	}
	cleanup := func() {}
	if m := sandbox.Mode(sv.spec.Sandbox); m != "" && m != sandbox.ModeOff {
		// Opted in: confined, or not started (never silently unconfined).
		p := sv.s.opt.Sandbox
		p.Mode, p.Workspace = m, sv.s.opt.Dir
		var err error
		if cleanup, err = sandbox.Wrap(cmd, p); err != nil {
			return nil, fmt.Errorf("start %s: sandbox %s: %w", sv.spec.Command, m, err)
		}
	}
	return &stdioTransport{cmd: cmd, wg: &sv.s.wg, children: sv.s.opt.Children, exited: make(chan struct{}), cleanup: cleanup,
		log: stderr, tasks: &taskOnly{}}, nil
}

// stdioTransport runs a server's command and speaks newline-delimited
// JSON over its stdin and stdout. It waits for the process itself, so how
// it exited is known (exitErr, once exited is closed), and closing it
// closes stdin, then signals the process group, then kills it.
type stdioTransport struct {
	cmd      *exec.Cmd
	wg       *sync.WaitGroup
	children *childproc.Registry
	pgid     atomic.Int64 // 0 until started
	exited   chan struct{}
	exitErr  error
	cleanup  func() // the sandbox's temp directory, once the process exited
	// log is where stdout's lines that are not MCP are noted (the
	// process's stderr tail); tasks are its task-only tools (stdout.go).
	log   io.Writer
	tasks *taskOnly
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	t.cmd.Stdin, t.cmd.Stdout = inR, outW
	release, err := t.children.Start(t.cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		t.cleanup()
		return nil, err
	}
	t.pgid.Store(int64(t.cmd.Process.Pid))
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.exitErr = t.cmd.Wait()
		release()
		t.cleanup()
		close(t.exited)
	}()
	w := &stdinCloser{t: t, stdin: inW, stdout: outR}
	return (&sdk.IOTransport{Reader: io.NopCloser(newStdoutFilter(outR, t.log, t.tasks)), Writer: w}).Connect(ctx)
}

// exitStatus says how the process ended, waiting at most d for it.
func (t *stdioTransport) exitStatus(d time.Duration) string {
	select {
	case <-t.exited:
	case <-time.After(d):
		return "still running"
	}
	var ee *exec.ExitError
	if errors.As(t.exitErr, &ee) {
		return ee.ProcessState.String()
	}
	if t.exitErr != nil {
		return t.exitErr.Error()
	}
	return "exit status 0"
}

// stdinCloser ends the connection the way MCP asks: stdin closed, then
// SIGTERM, then SIGKILL, each after terminateAfter; the process group goes
// last, and stdout's read end with it.
type stdinCloser struct {
	t      *stdioTransport
	stdin  *os.File
	stdout *os.File
	once   sync.Once
}

func (c *stdinCloser) Write(p []byte) (int, error) { return c.stdin.Write(p) }

func (c *stdinCloser) Close() error {
	c.once.Do(func() {
		c.stdin.Close()
		wait := func() bool {
			select {
			case <-c.t.exited:
				return true
			case <-time.After(terminateAfter):
				return false
			}
		}
		if !wait() {
			_ = syscall.Kill(-int(c.t.pgid.Load()), syscall.SIGTERM)
			if !wait() {
				killGroup(c.t)
				<-c.t.exited
			}
		}
		killGroup(c.t) // what the server started and left behind
		c.stdout.Close()
	})
	return nil
}

// expand replaces ${VAR} and $VAR in v from the environment, leaving out
// the agent's secrets and, in a project's entry, the variables the user
// did not grant it (project.go).
func (sv *server) expand(v string) string {
	getenv := sv.s.opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return os.Expand(v, func(name string) string {
		if secretName(name) || !mayExpand(sv.spec, name) {
			return ""
		}
		val := getenv(name)
		for _, s := range sv.s.opt.Secrets {
			if s != "" && val == s {
				return ""
			}
		}
		return val
	})
}

func secretName(name string) bool {
	for _, n := range secrets.Names {
		if n == name {
			return true
		}
	}
	return false
}

// headerTransport adds the entry's headers to every request, and reads
// the task-only tools in the responses (stdout.go).
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
	tasks   *taskOnly
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range h.headers {
		req.Header[k] = vs
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && h.tasks != nil {
		resp.Body = &taskNoter{ReadCloser: resp.Body, tasks: h.tasks}
	}
	return resp, err
}

// killGroup kills a stdio server's process group: the server and what it
// started. Nothing for HTTP servers or a command not started yet.
func killGroup(t sdk.Transport) {
	if st, ok := t.(*stdioTransport); ok {
		if pgid := st.pgid.Load(); pgid > 0 {
			_ = syscall.Kill(-int(pgid), syscall.SIGKILL)
		}
	}
}

// tail keeps the last bytes written to it through its writer (restart):
// of one process at a time.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	gen int
}

// tailWriter writes to a tail while its generation is the tail's.
type tailWriter struct {
	t   *tail
	gen int
}

func (w tailWriter) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	if w.gen == w.t.gen {
		w.t.appendLocked(p)
	}
	return len(p), nil
}

// restart empties the tail for a new process and returns the writer of
// that process; the writers of earlier ones write nothing more.
func (t *tail) restart() io.Writer {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen++
	t.buf = t.buf[:0]
	return tailWriter{t: t, gen: t.gen}
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) appendLocked(p []byte) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

// lastLines returns the last n non-empty lines, safe to show on a
// terminal, joined with " | ".
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	lines := strings.Split(termsafe.Strip(strings.ToValidUTF8(s, "\uFFFD")), "\n")
	var kept []string
	for i := len(lines) - 1; i >= 0 && len(kept) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 300 {
				l = strings.ToValidUTF8(l[:300], "") + "…"
			}
			kept = append([]string{l}, kept...)
		}
	}
	return strings.Join(kept, " | ")
}
