package acp

// session.go: one ACP session, driving one loop.Runner. A prompt claims
// the session (one at a time: a second is refused), sends the message and
// waits for the turn; session/cancel and the connection's end cancel it
// through the runner, as Esc does, so the prompt still answers with
// what ended it. The prompt's own request context is not what cancels the
// turn: the SDK cancels it when another prompt arrives for the session,
// which must not stop the running one.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/plan"
)

type session struct {
	a      *agent
	id     string
	dir    string
	opened *Opened
	mode   *plan.Mode
	asker  *asker
	calls  *toolCalls
	// work is what the turn asked of the client that must end before
	// the prompt answers (pending.go).
	work pending

	mu         sync.Mutex
	busy       bool
	cancelled  chan struct{} // closed by cancel while a prompt runs
	ready      bool          // the MCP servers were waited for once
	acceptEdit bool          // mode accept_edits: edits inside the directory need no question
}

// notify sends one session/update; a failure (the client gone) is logged.
func (s *session) notify(ctx context.Context, u sdk.SessionUpdate) {
	if err := s.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
		s.a.log.Debug("session/update", "session", s.id, "error", err)
	}
}

// modes is the session's mode state.
func (s *session) modes() *sdk.SessionModeState {
	return &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.currentMode()), AvailableModes: []sdk.SessionMode{
		{Id: ModeDefault, Name: "Default", Description: sdk.Ptr("Ask before commands and edits, as the permissions configure")},
		{Id: ModeAcceptEdits, Name: "Accept edits", Description: sdk.Ptr("Edits and writes inside the project run without asking; commands still ask")},
		{Id: ModePlan, Name: "Plan", Description: sdk.Ptr("Read-only tools only; the final answer is stored as the session's plan")},
	}}
}

func (s *session) currentMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.mode.On():
		return ModePlan
	case s.acceptEdit:
		return ModeAcceptEdits
	}
	return ModeDefault
}

func (s *session) setMode(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch id {
	case ModeDefault:
		s.mode.Set(false)
		s.acceptEdit = false
	case ModePlan:
		s.mode.Set(true)
		s.acceptEdit = false
	case ModeAcceptEdits:
		s.mode.Set(false)
		s.acceptEdit = true
	default:
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q: want %s, %s or %s", id, ModeDefault, ModeAcceptEdits, ModePlan)})
	}
	return nil
}

func (s *session) acceptsEdits() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acceptEdit
}

// announce sends the slash commands and the mode.
func (s *session) announce(ctx context.Context) {
	cmds := []sdk.AvailableCommand{
		{Name: "compact", Description: "Summarise the conversation now, with optional focus instructions", Input: hint("focus")},
		{Name: "context", Description: "Show how the context window is used"},
	}
	for _, c := range s.a.b.Commands(s.dir) {
		desc := c.Description
		if desc == "" {
			desc = "custom command"
		}
		cmds = append(cmds, sdk.AvailableCommand{Name: c.Name, Description: desc, Input: hint(c.Hint)})
	}
	s.notify(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}

func hint(h string) *sdk.AvailableCommandInput {
	if h == "" {
		return nil
	}
	return &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: h}}
}

// claim marks the session busy; false when a prompt already runs.
func (s *session) claim() (cancelled chan struct{}, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return nil, false
	}
	s.busy = true
	s.cancelled = make(chan struct{})
	return s.cancelled, true
}

func (s *session) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = false
	s.cancelled = nil
}

// cancel stops the running prompt's turn, if any.
func (s *session) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelled != nil {
		select {
		case <-s.cancelled:
		default:
			close(s.cancelled)
		}
	}
}

// prompt runs one prompt to the end of its turn.
func (s *session) prompt(reqCtx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	cancelled, ok := s.claim()
	if !ok {
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "a prompt is already running in session " + s.id + ": wait for its answer or send session/cancel"})
	}
	defer s.release()
	// The turn's context ends with the connection, not with the request
	// (see the file comment); a cancel reaches the runner below.
	ctx, stop := context.WithCancel(context.WithoutCancel(reqCtx))
	defer stop()
	go func() {
		select {
		case <-s.a.conn.Done():
			s.cancel()
		case <-ctx.Done():
		}
	}()
	r := s.opened.Runner
	in, err := s.readPrompt(blocks)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if handled, resp, err := s.builtin(ctx, in.text); handled {
		return resp, err
	}
	if strings.HasPrefix(strings.TrimSpace(in.text), "/") {
		text, found, err := s.a.b.Expand(s.dir, strings.TrimSpace(in.text))
		if err != nil {
			return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if found {
			in.text = text
		}
	}
	if len(in.images) > 0 && !r.Vision() {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("model %s %v", r.Model(), loop.ErrNoVision)})
	}
	s.waitReady(ctx)
	if err := r.SendImages(ctx, in.text, in.images); err != nil {
		return sdk.PromptResponse{}, err
	}
	var res loop.TurnResult
	select {
	case <-r.Done():
	case <-cancelled:
		_, _ = r.Cancel(context.Background())
	}
	res = r.Wait(context.Background())
	s.settle()
	select {
	case <-cancelled:
		res.FinishReason = loop.FinishCancelled
	default:
	}
	s.usage(ctx)
	return stopReason(res)
}

// settleTimeout bounds how long a prompt's answer waits for the client
// work its turn left behind: each of a terminal's last requests (kill,
// output, release) has fileTimeout.
const settleTimeout = 3 * fileTimeout

// settle waits for the client work the turn left behind (a cancelled
// bash's terminal being killed and released) to end, within
// settleTimeout or until the connection closes.
func (s *session) settle() {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	go func() {
		select {
		case <-s.a.conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	if !s.work.wait(ctx) {
		s.a.log.Warn("session/prompt: answering before the editor's terminals were released", "session", s.id)
	}
}

// waitReady waits once for the session's MCP servers.
func (s *session) waitReady(ctx context.Context) {
	s.mu.Lock()
	first := !s.ready
	s.ready = true
	s.mu.Unlock()
	if first && s.opened.Ready != nil {
		s.opened.Ready(ctx)
	}
}

// stopReason maps how the turn ended onto ACP's stop reasons; a turn
// that failed is an error of the request.
func stopReason(res loop.TurnResult) (sdk.PromptResponse, error) {
	switch res.FinishReason {
	case loop.FinishCancelled, loop.FinishStopped:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case loop.FinishMaxSteps, "timeout":
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case "length":
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case "content_filter":
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	if res.Err != nil {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": res.Err.Error()})
	}
	if res.FinishReason == loop.FinishDoomLoop || res.FinishReason == loop.FinishError {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": "the turn stopped: " + res.FinishReason})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// usage tells the client how much of the context the session uses.
func (s *session) usage(ctx context.Context) {
	r := s.opened.Runner
	rd := r.Reading()
	u := &sdk.SessionUsageUpdate{Used: int(rd.Total), Size: int(rd.Window)}
	if c := r.Session().CostUSD; c > 0 {
		u.Cost = &sdk.Cost{Amount: c, Currency: "USD"}
	}
	s.notify(ctx, sdk.SessionUpdate{UsageUpdate: u})
}

// builtin runs /compact and /context; handled is false for anything else.
func (s *session) builtin(ctx context.Context, text string) (handled bool, resp sdk.PromptResponse, err error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	r := s.opened.Runner
	switch name {
	case "/compact":
		before := r.Reading().Total
		if err := r.Compact(ctx, strings.TrimSpace(arg)); err != nil {
			if errors.Is(err, context.Canceled) {
				return true, sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
			return true, sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": "compact: " + err.Error()})
		}
		s.notify(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("Context compacted: %d → %d tokens.", before, r.Reading().Total)))
	case "/context":
		rd := r.Reading()
		s.notify(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("Context: %d of %d tokens used (%s), %d free, %d kept for the reply.",
			rd.Total, rd.Window, rd.Basis, rd.Free, rd.OutputReserve)))
	default:
		return false, sdk.PromptResponse{}, nil
	}
	s.usage(ctx)
	return true, sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// close cancels a running prompt and closes the session's runner.
func (s *session) close() {
	s.cancel()
	if s.opened != nil && s.opened.Close != nil {
		s.opened.Close()
	}
}
