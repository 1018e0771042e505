// Package tui is the chat: a Bubble Tea program in which the user talks to
// a session's loop. It renders from the loop's events (text deltas, part
// updates, status, queue, retries, prunes, compactions) and from the
// runner's read APIs; it never writes the database itself and never does
// I/O inside Update: every call into the runner runs as a tea.Cmd.
//
// The screen is, top to bottom: the conversation (user messages, assistant
// markdown, reasoning, tool cards, markers), an optional drawer (the
// /context overlay, help, pickers, the queue panel, permission and
// doom-loop dialogs: internal/tui/overlay), the editor with the queue
// badge, and the status line
// (model, title, context used from the token calculator, cost, and while
// busy a spinner, elapsed time and tokens per second).
//
// The loop calls its observer and askers on its own goroutine; they push
// into an unbounded ordered inbox that one command at a time drains, so
// the loop never waits for the screen.
//
// The root Model routes messages and keeps the session's state; the parts
// of the screen are small types it holds, each with its own file: the
// conversation (chatView: chat.go, focus.go), the render context
// (renderCtx: items.go, render.go), the editor (editor.go) and its @
// completion (mentionState: mention.go), the loop's open questions
// (overlay.Questions), the drawer slot (drawers.go: each drawer and dialog
// is an update/view type of internal/tui/overlay, which sees the chat
// through overlay.Host — chatHost, chathost.go — and the values each
// adapter passes in; what it does to the chat comes back as a result or a
// message the model handles), the compactions (compactions:
// compactcard.go), checkpoints (checkpointState: rewind.go), custom
// commands (customState: custom.go), waiting images (imageTray:
// images.go), hook notes (hookNotes: hooks.go), the environment prefetch
// (envPrefetch: prefetch.go, with the collection made ahead while a
// message is typed: gcahead.go), the ticker (ticker.go) and the status line
// (statusline.go).
package tui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/approval"
	usercmd "github.com/ctxloop/agent/internal/commands"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// Options configure the chat.
type Options struct {
	// LateNotices, if set, runs beside the first frame (latenotice.go);
	// what it returns is shown as Notices are.
	LateNotices func() []string
	// Loop is the template of the runners the chat opens (Store,
	// Provider, Tools, Config, Dir, OutputDir, MaxSteps…). The chat sets
	// Observer, Doom and Perms itself.
	Loop loop.Options
	// OpenStore, when Loop.Store is nil, opens the database behind the
	// first frame (startup.go); the chat closes it when it ends. An error
	// ends the chat with it.
	OpenStore func(context.Context) (*storage.Store, error)
	// PermModes are the configured permission modes per tool.
	PermModes map[string]tools.Mode
	// SessionID is the session to open; "" starts a new one.
	SessionID string
	// Setup, when set, is why nothing can be sent yet (no API key): the
	// chat opens anyway and says how to fix it.
	Setup error
	// Notices are shown above the conversation (configuration warnings).
	Notices []string
	// Version is the agent's version, for the welcome screen.
	Version string
	// Inline runs the chat on the terminal's main screen, finished
	// messages printed into its scrollback (inline.go); otherwise it
	// takes the alternate screen.
	Inline bool
	// Commands is the catalog of custom slash commands; nil offers none.
	Commands *usercmd.Catalog
	// MCP are the MCP servers the runners' Loop.Extra offers tools from,
	// for /context; nil when none is configured.
	MCP *mcp.Servers
	// Approvals, when set, is where the chat records the user's answer
	// about a project's MCP server that waits for approval: it asks
	// (mcpapproval.go). Nil: it does not ask.
	Approvals *approval.Store
	// DeleteSession deletes a session the /sessions picker was asked to
	// delete, with what it saved (agent sessions rm's deletion); nil
	// deletes its rows alone.
	DeleteSession func(context.Context, *storage.Store, *message.Session) error

	// jobsEsc is the chat's memory of the last Esc (jobs.go); New sets it.
	jobsEsc *escTwice
	// notify tells an unfocused terminal a turn ended or a dialog waits
	// (notify.go); New sets it.
	notify *notifier
}

// Run runs the chat until the user quits. It closes the session it has
// open (cancelling a running turn; queued messages stay persisted).
func Run(ctx context.Context, opt Options, progOpts ...tea.ProgramOption) error {
	m := New(opt)
	defer m.Close()
	g := &exitGuard{Model: m} // inlineexit.go
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFilter(g.filter)}
	if m.inline && len(progOpts) == 0 {
		g.watch = newFrameWatch(os.Stdout) // inlinefirst.go
		opts = append(opts, tea.WithOutput(g.watch))
	}
	opts = append(opts, progOpts...)
	p := tea.NewProgram(g, opts...)
	_, err := p.Run()
	if m.fatal != nil {
		return m.fatal
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted)) {
		return nil // SIGINT or SIGTERM: the session is saved as it goes
	}
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}
