package acp

// terminal.go: the client's terminals (terminal/create, terminal/output,
// terminal/wait_for_exit, terminal/kill, terminal/release) as the
// session's tools.Terminals, when the client offered them at initialize:
// a foreground bash runs in the editor's terminal (tools/bash_terminal.go
// says when), the tool call carries the terminal ({"type":"terminal"}) so
// the editor shows it live, and the call's end keeps it shown. A cancel or
// the timeout kills the command; the terminal is always released.

import (
	"context"
	"sort"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/tools"
)

// clientTerminals is the client's files and terminals.
type clientTerminals struct{ *clientFiles }

var _ tools.Terminals = clientTerminals{}

// editorOf is the session's editor, nil when the client offers neither
// files nor terminals.
func editorOf(s *session, caps sdk.ClientCapabilities) tools.Editor {
	fs := caps.Fs
	if !fs.ReadTextFile && !fs.WriteTextFile && !caps.Terminal {
		return nil
	}
	files := &clientFiles{s: s, read: fs.ReadTextFile, writes: fs.WriteTextFile}
	if caps.Terminal {
		return clientTerminals{files}
	}
	return files
}

func (c clientTerminals) RunCommand(ctx context.Context, cmd tools.TerminalCommand) (tools.TerminalOutcome, error) {
	s := c.s
	conn, sid := s.a.conn, sdk.SessionId(s.id)
	var envs []sdk.EnvVariable
	for k, v := range cmd.Env {
		envs = append(envs, sdk.EnvVariable{Name: k, Value: v})
	}
	sort.Slice(envs, func(i, j int) bool { return envs[i].Name < envs[j].Name })
	req := sdk.CreateTerminalRequest{SessionId: sid, Command: "bash", Args: []string{"-c", cmd.Command}, Env: envs}
	if cmd.Dir != "" {
		req.Cwd = sdk.Ptr(cmd.Dir)
	}
	if cmd.OutputLimit > 0 {
		req.OutputByteLimit = sdk.Ptr(cmd.OutputLimit)
	}
	// The prompt answers once this call has stopped and released its
	// terminal (pending.go), whenever the loop moves on.
	defer s.work.start()()
	// From terminal/create on, the requests must reach the client and be
	// answered even when the turn is cancelled meanwhile: a terminal the
	// editor made is the agent's to stop and release.
	after := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), fileTimeout)
	}
	cctx, cancel := after()
	created, err := conn.CreateTerminal(cctx, req)
	cancel()
	if err != nil {
		s.a.log.Warn("terminal/create: bash runs in the agent instead", "error", err)
		return tools.TerminalOutcome{}, err
	}
	tid := created.TerminalId
	defer func() {
		rctx, cancel := after()
		defer cancel()
		if _, err := conn.ReleaseTerminal(rctx, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid}); err != nil {
			s.a.log.Debug("terminal/release", "terminal", tid, "error", err)
		}
	}()
	if u, ok := s.calls.inTerminal(cmd.CallID, tid); ok {
		s.notify(ctx, u)
	}

	var out tools.TerminalOutcome
	wctx, stop := context.WithTimeout(ctx, cmd.Timeout)
	exit, werr := conn.WaitForTerminalExit(wctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: tid})
	stop()
	if werr != nil {
		out.Cancelled = ctx.Err() != nil
		out.TimedOut = !out.Cancelled && wctx.Err() != nil
		kctx, cancel := after()
		if _, err := conn.KillTerminal(kctx, sdk.KillTerminalRequest{SessionId: sid, TerminalId: tid}); err != nil {
			s.a.log.Debug("terminal/kill", "terminal", tid, "error", err)
		}
		cancel()
		if !out.Cancelled && !out.TimedOut {
			s.a.log.Warn("terminal/wait_for_exit", "terminal", tid, "error", werr)
			out.ExitCode = -1
		}
	} else {
		out.ExitCode, out.Signal = exitOf(exit.ExitCode, exit.Signal)
	}
	octx, cancel := after()
	defer cancel()
	got, err := conn.TerminalOutput(octx, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
	if err != nil {
		s.a.log.Warn("terminal/output", "terminal", tid, "error", err)
		got.Output = "[the editor did not give the terminal's output: " + err.Error() + "]\n"
	}
	out.Output, out.Truncated = got.Output, got.Truncated
	if werr != nil && got.ExitStatus != nil && !out.Cancelled && !out.TimedOut {
		out.ExitCode, out.Signal = exitOf(got.ExitStatus.ExitCode, got.ExitStatus.Signal)
	}
	return out, nil
}

// exitOf is an exit status's code and signal; a command killed by a
// signal has no code (-1).
func exitOf(code *int, signal *string) (int, string) {
	c, sig := -1, ""
	if code != nil {
		c = *code
	}
	if signal != nil {
		sig = *signal
	}
	return c, sig
}
