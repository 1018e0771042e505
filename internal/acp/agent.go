package acp

// agent.go: the ACP methods (the SDK's Agent and AgentLoader interfaces).
// Sessions live in a map by id under one lock; a method on an unknown
// session is an invalid-params error naming it.

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/plan"
)

// The session modes offered (session/set_mode).
const (
	ModeDefault     = "default"
	ModePlan        = "plan"
	ModeAcceptEdits = "accept_edits"
)

type agent struct {
	b    Backend
	log  *slog.Logger
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*session
	client   sdk.ClientCapabilities
}

func newAgent(b Backend, log *slog.Logger) *agent {
	return &agent{b: b, log: log, sessions: map[string]*session{}}
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

func (a *agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}},
		},
		AgentInfo:   &sdk.Implementation{Name: "agent", Title: sdk.Ptr("agent"), Version: a.b.Version()},
		AuthMethods: []sdk.AuthMethod{}, // the key comes from the environment or the config
	}, nil
}

func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil // no method is offered: nothing to do
}

func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(ctx, "", p.Cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s.announce(ctx)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: s.modes()}, nil
}

func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	a.mu.Lock()
	_, open := a.sessions[string(p.SessionId)]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "session " + string(p.SessionId) + " is already open on this connection"})
	}
	s, err := a.open(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.replay(ctx)
	s.announce(ctx)
	return sdk.LoadSessionResponse{Modes: s.modes()}, nil
}

// open opens a session through the backend and registers it.
func (a *agent) open(ctx context.Context, id, cwd string, servers []sdk.McpServer) (*session, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, not %q", cwd)})
	}
	mcp, err := mcpServers(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	a.mu.Lock()
	caps := a.client
	a.mu.Unlock()
	s := &session{a: a, dir: cwd, calls: newToolCalls(cwd)}
	s.asker = &asker{s: s}
	s.calls.read = textOf(s, caps.Fs)
	opened, err := a.b.Open(ctx, OpenSpec{ID: id, Dir: cwd, MCP: mcp, Observer: s.observe, Asker: s.asker, Editor: editorOf(s, caps)})
	if err != nil {
		if id != "" {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return nil, err
	}
	s.opened = opened
	s.mode = opened.Mode
	if s.mode == nil {
		s.mode = plan.New(false, nil)
	}
	s.id = opened.Runner.Session().ID
	if d := opened.Runner.Session().Dir; d != "" {
		s.dir = d
		s.calls.dir = d
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// session returns the open session id names, or an invalid-params error.
func (a *agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q: create one with session/new or load it with session/load", id)})
	}
	return s, nil
}

func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

func (a *agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		a.log.Warn("session/cancel", "error", err)
		return nil // a notification has no answer
	}
	s.cancel()
	return nil
}

func (a *agent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

func (a *agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// listPage is how many sessions one session/list answer holds.
const listPage = 100

// ListSessions lists the stored sessions of the cwd asked (of every
// directory without one), newest first, a page at a time: the cursor is
// the offset of the next page.
func (a *agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	dir := ""
	if p.Cwd != nil && *p.Cwd != "" {
		if !filepath.IsAbs(*p.Cwd) {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, not %q", *p.Cwd)})
		}
		dir = filepath.Clean(*p.Cwd)
	}
	from := 0
	if p.Cursor != nil && *p.Cursor != "" {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cursor %q is not one this agent gave", *p.Cursor)})
		}
		from = n
	}
	list, err := a.b.Sessions(ctx, dir)
	if err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for i := from; i < len(list) && i < from+listPage; i++ {
		s := list[i]
		info := sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: s.Dir, UpdatedAt: sdk.Ptr(s.UpdatedAt.UTC().Format(time.RFC3339))}
		if s.Title != "" {
			info.Title = sdk.Ptr(s.Title)
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	if from+listPage < len(list) {
		resp.NextCursor = sdk.Ptr(strconv.Itoa(from + listPage))
	}
	return resp, nil
}

func (a *agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// closeAll cancels the running turns and closes every session.
func (a *agent) closeAll() {
	a.mu.Lock()
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// mcpServers are the client's MCP servers by name, as the config's.
func mcpServers(in []sdk.McpServer) (map[string]config.MCPServer, error) {
	out := map[string]config.MCPServer{}
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out[m.Stdio.Name] = config.MCPServer{Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env}
		case m.Http != nil:
			h := map[string]string{}
			for _, e := range m.Http.Headers {
				h[e.Name] = e.Value
			}
			out[m.Http.Name] = config.MCPServer{URL: m.Http.Url, Headers: h}
		case m.Sse != nil:
			return nil, fmt.Errorf("MCP server %q: SSE transport is not supported (stdio and http are)", m.Sse.Name)
		default:
			return nil, fmt.Errorf("MCP server: unsupported transport")
		}
	}
	return out, nil
}
