// Package acp serves the Agent Client Protocol (ACP, JSON-RPC 2.0 over
// stdio, protocol version 1 as github.com/coder/acp-go-sdk v0.13.0 speaks
// it) so that an editor (Zed, JetBrains, Neovim, Emacs) drives the agent's
// sessions. Serve is the one entry point; the SDK does the framing and the
// JSON-RPC error codes, this package maps ACP onto the agent:
//
//   - session/list lists the stored sessions (Backend.Sessions).
//   - session/new and session/load open a loop.Runner through the Backend
//     (the command's configuration, database and provider); load first
//     replays the stored conversation as session/update notifications.
//   - session/prompt sends the prompt's text (resource links become
//     @mentions, embedded resources are quoted, images are attachments)
//     and answers when the turn ends, with stopReason "cancelled" after a
//     session/cancel (the chat's Esc: what was streamed is kept). A second
//     prompt while one runs is refused (invalid request): nothing queues
//     behind the editor's back.
//   - The loop's events (its Observer, synchronous and complete) become
//     session/update notifications in order: message and thought chunks,
//     tool calls with kind, title, locations, status and content (a diff
//     for write and edit, the output for bash), the todo list as a plan,
//     and the context's use after each turn.
//   - A permission the agent's own rules leave to the user is asked with
//     session/request_permission (allow once, allow for the session,
//     reject), the call's diff shown.
//   - The client's capabilities are the session's tools.Editor: its files
//     (fs/*: files.go) for read, write and edit and the diffs, its
//     terminals (terminal/*: terminal.go) for a foreground bash.
//
// Nothing but protocol messages is written to out; diagnostics go to the
// logger. When in closes, running turns are cancelled (their work is
// stored, as after Esc) and Serve returns nil once the sessions are closed.
package acp

import (
	"context"
	"io"
	"log/slog"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/plan"
	"github.com/ctxloop/agent/internal/tools"
)

// ProtocolVersion is the ACP version served.
const ProtocolVersion = sdk.ProtocolVersionNumber

// Backend opens the agent's sessions and reads what a session offers; the
// command that serves ACP implements it with its configuration, database
// and provider.
type Backend interface {
	// Open drives a session: ID "" makes a new one in Dir. The runner's
	// observer, asker and mode are spec's.
	Open(ctx context.Context, spec OpenSpec) (*Opened, error)
	// Commands are the custom slash commands of dir (internal/commands).
	Commands(dir string) []Command
	// Expand turns "/name args" into the custom command's text; ok is
	// false when no custom command has that name.
	Expand(dir, text string) (expanded string, ok bool, err error)
	// SaveImage stores an image of a prompt as an attachment.
	SaveImage(name string, data []byte) (*message.FileState, error)
	// Sessions are the stored sessions of dir (every directory's when
	// dir is ""), most recently updated first (session/list).
	Sessions(ctx context.Context, dir string) ([]message.Session, error)
	// Version is the agent's version, as `agent --version` says it.
	Version() string
}

// OpenSpec is what a session is opened with.
type OpenSpec struct {
	// ID is the stored session to drive; "" makes a new one in Dir.
	ID  string
	Dir string
	// MCP are the MCP servers the client passed, by the client's names:
	// they join the user's configured servers (a name both have is the
	// client's).
	MCP map[string]config.MCPServer
	// Observer gets every event of the session (loop.Options.Observer).
	Observer func(message.Event)
	// Asker asks the user what the permission rules leave open.
	Asker tools.Asker
	// Editor is the client's files and terminals when it offers them
	// (tools.Env.Editor; a tools.Terminals too with terminals); nil: the
	// disk and the agent's own bash only.
	Editor tools.Editor
}

// Opened is a session the Backend opened.
type Opened struct {
	Runner *loop.Runner
	// Mode is the session's mode (loop.Options.Mode), switched by
	// session/set_mode.
	Mode *plan.Mode
	// Ready waits, within their startup timeouts, for the MCP servers to
	// offer their tools; nil when there are none.
	Ready func(ctx context.Context)
	// Close closes the runner and what was started for it.
	Close func()
}

// Command is a slash command offered to the client.
type Command struct {
	Name, Description, Hint string
}

// Serve speaks ACP on in and out until in closes or ctx is done, then
// cancels the turns still running and closes the sessions.
func Serve(ctx context.Context, in io.Reader, out io.Writer, b Backend, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := newAgent(b, log)
	w := &lockedWriter{w: out}
	conn := sdk.NewAgentSideConnection(a, w, parseGuard(in, w))
	conn.SetLogger(log)
	a.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}
