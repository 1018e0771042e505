package mcp

// One server: its connection's life (connect, watch, restart, close) and
// its calls. A connection attempt runs in its own goroutine; callers wait
// for it on ready, or their context.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxloop/agent/internal/config"
)

// closeGrace is how long Close lets a server exit on its own (stdin
// closed, the HTTP session deleted) before its process group is killed.
const closeGrace = time.Second

// crashSettle is how long a failed call waits for the connection's end to
// be recorded, so its error can say how the server exited.
const crashSettle = 500 * time.Millisecond

// maxTools bounds the tools taken from one server.
const maxTools = 1000

type server struct {
	s      *Servers
	name   string
	spec   config.MCPServer
	stderr *tail

	mu       sync.Mutex
	state    State
	reason   string
	restarts int
	conn     *conn
	tools    []toolInfo
	ready    chan struct{} // closed when the current connection attempt is over
}

// conn is one connection to a server.
type conn struct {
	cs   *sdk.ClientSession
	t    sdk.Transport // *stdioTransport for a stdio server
	done chan struct{} // closed when the connection has ended
	how  string        // how it ended, set before done is closed
}

// toolInfo is a tool as the server lists it.
type toolInfo struct {
	name, desc string
	schema     json.RawMessage
}

func newServer(s *Servers, name string, spec config.MCPServer) *server {
	ready := make(chan struct{})
	close(ready)
	return &server{s: s, name: name, spec: spec, stderr: newTail(stderrMaxBytes), ready: ready}
}

func (sv *server) callTimeout() time.Duration {
	if sv.spec.TimeoutS > 0 {
		return time.Duration(sv.spec.TimeoutS * float64(time.Second))
	}
	return sv.s.opt.CallTimeout
}

func (sv *server) startupTimeout() time.Duration {
	if sv.spec.StartupTimeoutS > 0 {
		return time.Duration(sv.spec.StartupTimeoutS * float64(time.Second))
	}
	return sv.s.opt.StartupTimeout
}

// launch starts a connection attempt in the background; the caller has
// checked that none is under way.
func (sv *server) launch() {
	sv.mu.Lock()
	sv.launchLocked()
	sv.mu.Unlock()
}

func (sv *server) launchLocked() {
	sv.state, sv.reason = StateConnecting, ""
	ready := make(chan struct{})
	sv.ready = ready
	sv.s.wg.Add(1)
	go func() {
		defer sv.s.wg.Done()
		defer close(ready)
		c, list, err := sv.connect()
		sv.mu.Lock()
		if err == nil {
			// Watched from the start: a connection that ends at once is
			// a crash like any other.
			sv.s.wg.Add(1)
			go sv.watch(c)
		}
		switch {
		case err == nil && sv.state == StateConnecting:
			sv.state, sv.conn, sv.tools = StateConnected, c, list
		case err == nil: // closed meanwhile
			sv.mu.Unlock()
			sv.stop(c)
			return
		case sv.state != StateConnecting:
		case sv.restarts > 0:
			// A restart that failed: the next call tries again, within
			// the bound.
			sv.state, sv.reason = StateCrashed, "restart failed: "+err.Error()
			sv.exhaustLocked()
		default:
			sv.state, sv.reason = StateFailed, err.Error()
		}
		sv.mu.Unlock()
		sv.s.changed()
	}()
}

// exhaustLocked turns a crashed server that may not restart again into a
// failed one.
func (sv *server) exhaustLocked() {
	if sv.state == StateCrashed && sv.restarts >= sv.s.opt.MaxRestarts {
		sv.state = StateFailed
		sv.reason = fmt.Sprintf("%s; not restarted again (%d restarts)", sv.reason, sv.restarts)
		sv.tools = nil
	}
}

// connect starts or dials the server and lists its tools, within the
// startup timeout.
func (sv *server) connect() (*conn, []toolInfo, error) {
	ctx, cancel := context.WithTimeout(sv.s.ctx, sv.startupTimeout())
	defer cancel()
	t, err := sv.transport()
	if err != nil {
		return nil, nil, err
	}
	// A server that does not answer in time is killed, which ends the
	// handshake waiting on its pipe.
	stopKill := context.AfterFunc(ctx, func() { killGroup(t) })
	fail := func(err error) (*conn, []toolInfo, error) {
		killGroup(t)
		if ctx.Err() != nil && sv.s.ctx.Err() == nil {
			err = fmt.Errorf("no answer within %v (startup_timeout_s)", sv.startupTimeout())
		}
		return nil, nil, sv.withStderr(err)
	}
	c := &conn{t: t, done: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: sv.s.opt.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { sv.relist(c) },
	})
	if root := sessionRoot(sv.s.opt.Dir); root != nil {
		client.AddRoots(root)
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fail(fmt.Errorf("start: %w", err))
	}
	c.cs = cs
	list, err := listTools(ctx, cs, taskOnlyOf(t))
	if err != nil {
		cs.Close()
		return fail(fmt.Errorf("list tools: %w", err))
	}
	if !stopKill() {
		cs.Close()
		return fail(ctx.Err())
	}
	return c, list, nil
}

// listTools lists the server's tools but those only callable as tasks
// (stdout.go).
func listTools(ctx context.Context, cs *sdk.ClientSession, tasks *taskOnly) ([]toolInfo, error) {
	var list []toolInfo
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if tasks.has(t.Name) {
			continue
		}
		if len(list) < maxTools {
			list = append(list, toolInfo{name: t.Name, desc: t.Description, schema: normaliseSchema(t.InputSchema)})
		}
	}
	return list, nil
}

// relist lists the tools again after the server said they changed.
func (sv *server) relist(c *conn) {
	sv.s.wg.Add(1)
	go func() {
		defer sv.s.wg.Done()
		ctx, cancel := context.WithTimeout(sv.s.ctx, sv.startupTimeout())
		defer cancel()
		list, err := listTools(ctx, c.cs, taskOnlyOf(c.t))
		if err != nil {
			return
		}
		sv.mu.Lock()
		current := sv.conn == c
		if current {
			sv.tools = list
		}
		sv.mu.Unlock()
		if current {
			sv.s.changed()
		}
	}()
}

// watch waits for a connection to end; one that ends on its own is a
// crash, restarted by the next call.
func (sv *server) watch(c *conn) {
	defer sv.s.wg.Done()
	err := c.cs.Wait()
	c.cs.Close() // releases what the session holds (its subscription) however it ended
	c.how = sv.ended(c, err)
	// The state and the tools offered know of the crash before a caller
	// waiting on done hears of it: a call made right after must restart
	// the server, not find the dead connection still marked connected.
	sv.mu.Lock()
	crashed := sv.conn == c && sv.state == StateConnected
	if crashed {
		sv.conn = nil
		sv.state, sv.reason = StateCrashed, c.how
		if sv.s.opt.MaxRestarts > 0 {
			sv.reason += "; restarted by the next call"
		}
		sv.exhaustLocked()
	}
	sv.mu.Unlock()
	if crashed {
		sv.s.changed()
	}
	close(c.done)
	killGroup(c.t) // what the server started and left behind
}

// ended says how a connection ended.
func (sv *server) ended(c *conn, err error) string {
	how := "the connection closed"
	if st, ok := c.t.(*stdioTransport); ok {
		how = "the server exited (" + st.exitStatus(crashSettle) + ")"
	} else if err != nil {
		how += ": " + err.Error()
	}
	return sv.withStderr(errors.New(how)).Error()
}

// withStderr adds the end of the server's stderr to err.
func (sv *server) withStderr(err error) error {
	if s := sv.stderr.lastLines(3); s != "" {
		return fmt.Errorf("%w; stderr: %s", err, s)
	}
	return err
}

// session returns the connection to call, restarting a crashed server
// (within the bound) and waiting for a connection under way.
func (sv *server) session(ctx context.Context) (*conn, error) {
	for {
		sv.mu.Lock()
		switch sv.state {
		case StateConnected:
			c := sv.conn
			sv.mu.Unlock()
			return c, nil
		case StateConnecting:
			ready := sv.ready
			sv.mu.Unlock()
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case StateCrashed:
			if sv.restarts < sv.s.opt.MaxRestarts && sv.s.ctx.Err() == nil {
				sv.restarts++
				sv.launchLocked()
				sv.mu.Unlock()
				sv.s.changed()
				continue
			}
			sv.exhaustLocked()
		}
		err := fmt.Errorf("the %s server is %s: %s", sv.name, sv.state, sv.reason)
		sv.mu.Unlock()
		return nil, err
	}
}

// call runs one tool call within the server's call timeout.
func (sv *server) call(ctx context.Context, tool string, args json.RawMessage) (*sdk.CallToolResult, error) {
	c, err := sv.session(ctx)
	if err != nil {
		return nil, err
	}
	timeout := sv.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(sv.s.ctx, cancel)
	defer stop()
	if len(strings.TrimSpace(string(args))) == 0 || strings.TrimSpace(string(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err == nil {
		return res, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("cancelled: %w", ctx.Err())
	case sv.s.ctx.Err() != nil:
		return nil, errors.New("the agent is shutting its MCP servers down")
	case cctx.Err() != nil:
		return nil, fmt.Errorf("the %s server did not answer within %v; the call was abandoned (timeout_s in its config entry sets the limit)", sv.name, timeout)
	}
	select {
	case <-c.done:
		next := "it will be restarted by the next call"
		sv.mu.Lock()
		if sv.restarts >= sv.s.opt.MaxRestarts {
			next = "it will not be restarted"
		}
		sv.mu.Unlock()
		return nil, fmt.Errorf("the call failed because %s; %s", c.how, next)
	case <-time.After(crashSettle):
	}
	return nil, fmt.Errorf("the %s server returned an error: %w", sv.name, err)
}

// offered returns the server's tools when it can take calls: connected,
// or crashed and to be restarted by the next call.
func (sv *server) offered() ([]toolInfo, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	switch sv.state {
	case StateConnected, StateCrashed:
		return sv.tools, true
	case StateConnecting:
		if sv.restarts > 0 { // restarting: keep offering
			return sv.tools, true
		}
	}
	return nil, false
}

func (sv *server) status() Status {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return Status{
		Name: sv.name, Kind: sv.spec.Kind(), State: sv.state, Reason: sv.reason,
		Project: sv.spec.Project, Restarts: sv.restarts, Stderr: sv.stderr.lastLines(10),
	}
}

func (sv *server) waitReady(ctx context.Context) error {
	sv.mu.Lock()
	ready := sv.ready
	sv.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// allow starts a server that waits for approval.
func (sv *server) allow() bool {
	sv.mu.Lock()
	if sv.state != StateNeedsApproval || sv.s.ctx.Err() != nil {
		sv.mu.Unlock()
		return false
	}
	sv.launchLocked()
	sv.mu.Unlock()
	sv.s.changed()
	return true
}

// close ends the server's connection for good.
func (sv *server) close() {
	sv.mu.Lock()
	c := sv.conn
	sv.conn, sv.state = nil, StateClosed
	ready := sv.ready
	sv.mu.Unlock()
	<-ready // a connect ends promptly: its context is cancelled
	if c != nil {
		sv.stop(c)
	}
}

// stop closes a connection: gracefully for closeGrace, then the process
// group is killed.
func (sv *server) stop(c *conn) {
	closed := make(chan struct{})
	go func() {
		c.cs.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(closeGrace):
	}
	killGroup(c.t)
	select {
	case <-closed:
	case <-time.After(closeGrace):
	}
	select {
	case <-c.done:
	case <-time.After(closeGrace):
	}
}
