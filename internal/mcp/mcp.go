// Package mcp connects the agent to MCP servers and offers their tools to
// the model.
//
// The contract:
//
//   - Start returns at once. Every configured server connects in its own
//     goroutine (a stdio server is started as a child process, a streamable
//     HTTP server is dialled), lists its tools, and only then do its tools
//     join Servers.Tools, the tools.Source the loop asks before every step.
//     A slow or failing server delays nothing; Status says what happened.
//   - A server's tool is offered as SERVER__TOOL (letters, digits, _ and -,
//     at most 64, made unique), with the server's description and input
//     schema (normalised to an object schema a provider accepts). It is a
//     tools.Tool, so the registry validates its input, sanitises, truncates
//     and saves its output like a built-in tool's, and it is tools.Gated:
//     it asks before it runs unless permissions allow "SERVER__TOOL" or
//     "SERVER" (the most specific key wins).
//   - Whatever a server does (crash, close its pipe, hang past its timeout,
//     send nonsense) a call ends with an error result within its timeout,
//     never a panic or a hung turn; a cancelled context ends a call at
//     once. A stdio server that died is restarted by the next call, at most
//     Options.MaxRestarts times; its status says so meanwhile.
//   - Text content is joined; images, audio and binary resources are
//     described, not dumped; a result marked isError is an error result.
//   - Child processes run in Options.Dir, in their own process group, with
//     the agent's environment minus its secrets plus the entry's env. ${VAR}
//     in env and header values is expanded when the server is connected
//     (never a secret's variable; in a project's entry only the variables
//     the user's config grants it, project.go). A child's stderr is kept (its last
//     stderrMaxBytes) for status and errors, never printed. Close stops
//     every server and kills the process groups.
//   - A server a project file declared starts only if Options.Approved says
//     the user approved this entry; otherwise its status is "needs approval"
//     until Allow starts it. A project's entry whose env would change what
//     a program loads is "refused" and never starts (project.go). Approve
//     and ApprovedIn record and read those approvals (approve.go);
//     Describe shows everything an entry runs and sends.
package mcp

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/tools"
)

// Defaults for the zero fields of Options and an entry's timeouts.
const (
	DefaultCallTimeout    = 60 * time.Second
	DefaultStartupTimeout = 30 * time.Second
	DefaultMaxRestarts    = 3
)

// Options configure Start.
type Options struct {
	// Dir is where stdio servers run: the session's directory.
	Dir string
	// Secrets are values kept out of the servers' environments and header
	// expansions (the API key).
	Secrets []string
	// Approved reports whether a server a project file declared may start
	// (the user approved this very entry); nil approves none. The user's
	// own servers always start.
	Approved func(name string, s config.MCPServer) bool
	// Getenv expands ${VAR} in env and header values (os.Getenv when nil).
	Getenv func(string) string
	// CallTimeout and StartupTimeout apply to servers whose entry sets
	// none (timeout_s, startup_timeout_s); zero means the defaults.
	CallTimeout    time.Duration
	StartupTimeout time.Duration
	// MaxRestarts bounds the restarts of a crashed server over the life of
	// the Servers (default DefaultMaxRestarts; negative: never restarted).
	MaxRestarts int
	// Version is the client version servers are told.
	Version string
	// Children records the stdio servers' process groups while they run,
	// for the next start to stop what a crashed agent left (nil: not
	// recorded). Servers are started through it either way: each dies
	// with the agent.
	Children *childproc.Registry
	// Sandbox is the policy a stdio server that opts into the sandbox
	// (config mcp.NAME.sandbox) runs under: network, read-only and
	// writable directories; the mode is the entry's, the workspace Dir.
	Sandbox sandbox.Policy
}

// State is where a server stands.
type State string

// The states of a server.
const (
	StateConnecting    State = "connecting"
	StateConnected     State = "connected"
	StateCrashed       State = "crashed" // restarts on the next call
	StateFailed        State = "failed"
	StateNeedsApproval State = "needs approval"
	StateDisabled      State = "disabled"
	StateRefused       State = "refused" // a project's entry that may not start (project.go)
	StateClosed        State = "closed"
)

// Status describes one server.
type Status struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // config.MCPStdio or config.MCPHTTP
	State   State  `json:"status"`
	Reason  string `json:"reason,omitempty"`  // why it failed, crashed or waits
	Project string `json:"project,omitempty"` // the project file that declared it
	// Tools are the names its tools are offered under; Tokens estimates
	// what their schemas cost in every request (as the loop counts them).
	Tools  []string `json:"tools"`
	Tokens int64    `json:"tokens"`
	// ToolTokens are each tool's tokens, in the order of Tools.
	ToolTokens []int64 `json:"tool_tokens,omitempty"`
	Restarts   int     `json:"restarts"`
	// Stderr is the end of a stdio server's stderr, made safe to show.
	Stderr string `json:"stderr,omitempty"`
}

// Over splits the server's tools at the limit of one tool (limitTokens,
// toolsearch.ToolLimit; 0: none): the names of those whose schema alone
// is over it, which are never sent, and the tokens of the others.
func (st Status) Over(limitTokens int64) (tooLarge []string, sentTokens int64) {
	for i, name := range st.Tools {
		if n := st.ToolTokens[i]; limitTokens > 0 && n > limitTokens {
			tooLarge = append(tooLarge, name)
		} else {
			sentTokens += n
		}
	}
	return tooLarge, sentTokens
}

// Servers are the MCP servers of one agent process. Its methods are safe
// for concurrent use.
type Servers struct {
	opt     Options
	ctx     context.Context // cancelled by Close: ends connects and calls
	cancel  context.CancelFunc
	servers []*server // by name
	wg      sync.WaitGroup

	changeMu sync.Mutex // one rebuild at a time, so the last state wins

	mu     sync.Mutex
	tools  []tools.Tool // of the servers that can take calls; rebuilt by changed
	status map[*server][]*tool
	closed bool

	closeOnce sync.Once
	// changes has a value after a change not yet seen (Changes).
	changes chan struct{}
}

// Start starts connecting every server of specs in the background and
// returns at once. Close must be called when done with the servers.
func Start(ctx context.Context, specs map[string]config.MCPServer, opt Options) *Servers {
	if opt.CallTimeout <= 0 {
		opt.CallTimeout = DefaultCallTimeout
	}
	if opt.StartupTimeout <= 0 {
		opt.StartupTimeout = DefaultStartupTimeout
	}
	if opt.MaxRestarts == 0 {
		opt.MaxRestarts = DefaultMaxRestarts
	}
	s := &Servers{opt: opt, status: map[*server][]*tool{}, changes: make(chan struct{}, 1)}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s.servers = append(s.servers, newServer(s, name, specs[name]))
	}
	for _, sv := range s.servers {
		switch {
		case sv.spec.Disabled:
			sv.state = StateDisabled
		case Refusal(sv.spec) != "":
			sv.state, sv.reason = StateRefused, Refusal(sv.spec)
		case sv.spec.Project != "" && (opt.Approved == nil || !opt.Approved(sv.name, sv.spec)):
			sv.state = StateNeedsApproval
			sv.reason = "declared by " + sv.spec.Project + "; run `agent mcp approve " + sv.name + "` to allow it"
		default:
			sv.launch()
		}
	}
	return s
}

// Tools returns the tools of the servers that can take calls, by server
// name and then in each server's order. The slice is shared: do not
// change it.
func (s *Servers) Tools() []tools.Tool {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Status returns every configured server's status, by name.
func (s *Servers) Status() []Status {
	if s == nil {
		return nil
	}
	out := make([]Status, 0, len(s.servers))
	for _, sv := range s.servers {
		st := sv.status()
		s.mu.Lock()
		for _, t := range s.status[sv] {
			st.Tools = append(st.Tools, t.name)
			st.ToolTokens = append(st.ToolTokens, SchemaTokens(t))
			st.Tokens += SchemaTokens(t)
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Wait waits until no server is connecting (each is connected or has
// failed), or ctx is done.
func (s *Servers) Wait(ctx context.Context) error {
	if s == nil {
		return nil
	}
	for _, sv := range s.servers {
		if err := sv.waitReady(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Allow starts a server that waits for approval (the caller has recorded
// the approval). It reports whether there was such a server.
func (s *Servers) Allow(name string) bool {
	if s == nil {
		return false
	}
	for _, sv := range s.servers {
		if sv.name == name && sv.allow() {
			return true
		}
	}
	return false
}

// Spec returns the entry the server name was started from, and whether
// there is such a server.
func (s *Servers) Spec(name string) (config.MCPServer, bool) {
	if s == nil {
		return config.MCPServer{}, false
	}
	for _, sv := range s.servers {
		if sv.name == name {
			return sv.spec, true
		}
	}
	return config.MCPServer{}, false
}

// Close stops every server: calls in flight end with an error, stdio
// servers are asked to exit (their stdin closed) and their process groups
// killed after a short grace. It waits for the package's goroutines.
func (s *Servers) Close() error {
	if s == nil {
		return nil
	}
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.tools = nil
		s.mu.Unlock()
		s.cancel()
		var wg sync.WaitGroup
		for _, sv := range s.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sv.close()
			}()
		}
		wg.Wait()
		s.wg.Wait()
	})
	return nil
}

// changed rebuilds the tools after a server's status or tools changed,
// and tells Changes.
func (s *Servers) changed() {
	type offer struct {
		sv    *server
		tools []toolInfo
	}
	s.changeMu.Lock()
	var offers []offer
	for _, sv := range s.servers {
		if list, ok := sv.offered(); ok {
			offers = append(offers, offer{sv, list})
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.changeMu.Unlock()
		return
	}
	taken := map[string]bool{}
	var all []tools.Tool
	status := map[*server][]*tool{}
	for _, o := range offers {
		for _, info := range o.tools {
			t := newTool(o.sv, uniqueName(o.sv.name, info.name, taken), info)
			all = append(all, t)
			status[o.sv] = append(status[o.sv], t)
		}
	}
	// Keep the slice the loop holds when nothing changed, so its table is
	// not rebuilt.
	if !sameTools(all, s.tools) {
		s.tools = all
	}
	s.status = status
	s.mu.Unlock()
	s.changeMu.Unlock()
	select {
	case s.changes <- struct{}{}:
	default: // one pending is enough: the reader looks at Status
	}
}

// sameTools reports whether a and b offer the same tools of the same
// servers' connections.
func sameTools(a, b []tools.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y tools.Tool) bool {
		tx, ty := x.(*tool), y.(*tool)
		return tx.name == ty.name && tx.sv == ty.sv && tx.remote == ty.remote &&
			tx.desc == ty.desc && string(tx.schema) == string(ty.schema)
	})
}
