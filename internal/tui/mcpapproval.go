package tui

// A project's MCP servers ask before they start. A server a project file
// (.agent/config.json) declares waits ("needs approval") until the user
// approves that very entry. The chat asks about each such server once per
// start, one dialog at a time, with the question machinery of overlay/questions.go; the dialog is
// overlay.MCPDialog
// (typing keeps going to the editor; alt+key or Tab then Enter answers):
//   - when: after the first frame, once the chat is idle (no session
//     opening, no turn, no other question or drawer open). Which servers
//     wait is read off the Update loop, so the first frame never waits for
//     it. A question from the loop that arrives meanwhile goes first.
//   - what: the server's name, the project file, and exactly what would
//     run and send (the command and its arguments, or the URL; every env
//     entry and header with its value as written, and the variables they
//     reference with whether the user's config grants them: mcp.Sends),
//     quoted where a character could not be shown as it is
//     (mcp.Printable).
//   - answers: "approve and start" records the approval as `agent mcp
//     approve` does (mcp.Approve) and starts the server (Servers.Allow):
//     its tools join from the next step. "not now" records nothing: the
//     next start asks again. "never for this project" records a decline of
//     the entry as it is (mcp.Decline): no start asks again until it
//     changes, and `agent mcp approve` still starts it.
// Headless runs do not ask: they warn on stderr (cmd/agent reportMCP).
// A project's hooks are not asked about here: they need `agent hooks
// approve` (the hooks runner is fixed when the chat starts).

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// mcpAsking is where the chat stands with the servers waiting for approval.
type mcpAsking struct {
	scanned bool               // the scan for waiting servers was started
	known   bool               // and its result has arrived
	queue   []overlay.MCPAsk   // servers found waiting, not asked yet
	shown   *overlay.MCPDialog // the question asked, until it is answered
	// told are the servers' failures told in the chat (mcpwatch.go).
	told mcpWatch
}

// askMCPApprovals is afterUpdate's step: it starts the scan once, then
// puts the next waiting server's question up when the chat is idle.
func (m *Model) askMCPApprovals() tea.Cmd {
	a := &m.mcpAsking
	if m.opt.MCP == nil || m.opt.Approvals == nil || m.closed {
		return nil
	}
	if !a.scanned {
		a.scanned = true
		return scanMCPApprovals(m.opt.MCP, m.opt.Approvals)
	}
	if a.shown != nil {
		i := m.questions.Index(a.shown)
		switch {
		case i < 0 && a.shown.Answered():
			a.shown = nil // chosen: mcpAsking.chosen acts on it
		case i < 0:
			// Dropped with the conversation (/new, another session):
			// asked again when the chat is idle.
			a.queue = append([]overlay.MCPAsk{a.shown.Ask()}, a.queue...)
			a.shown = nil
		case i == 0 && m.questions.Len() > 1 && !m.questions.Focused():
			// The loop asked something meanwhile: its turn waits for the
			// answer, this question does not.
			m.questions.Defer()
			return nil
		default:
			return nil
		}
	}
	if len(a.queue) == 0 || !m.mcpIdle() {
		return nil
	}
	a.shown = overlay.NewMCPDialog(a.queue[0])
	a.queue = a.queue[1:]
	m.questions.Add(a.shown)
	return nil
}

// mcpIdle reports whether a question may open now: the first frame is
// drawn and nothing else wants the user.
func (m *Model) mcpIdle() bool {
	return m.sized && !m.opening && !m.busy && !m.compacting && m.questions.Len() == 0 && m.drawer == nil
}

// mcpScannedMsg are the servers waiting for approval.
type mcpScannedMsg struct{ asks []overlay.MCPAsk }

func (msg mcpScannedMsg) apply(m *Model) tea.Cmd {
	m.mcpAsking.queue = append(m.mcpAsking.queue, msg.asks...)
	m.mcpAsking.known = true
	return nil
}

// scanMCPApprovals finds the servers waiting for approval that the user
// has not declined.
func scanMCPApprovals(servers *mcp.Servers, st *approval.Store) tea.Cmd {
	return func() tea.Msg {
		var asks []overlay.MCPAsk
		for _, s := range servers.Status() {
			if s.State != mcp.StateNeedsApproval {
				continue
			}
			spec, ok := servers.Spec(s.Name)
			if !ok || mcp.Declined(st, s.Name, spec) {
				continue
			}
			asks = append(asks, overlay.MCPAsk{Name: s.Name, Spec: spec})
		}
		return mcpScannedMsg{asks: asks}
	}
}

// mcpAnsweredMsg is what came of an answer that wrote the approvals.
type mcpAnsweredMsg struct {
	ask     overlay.MCPAsk
	choice  overlay.MCPChoice
	err     error
	started bool // approve: Allow started the server
}

func (msg mcpAnsweredMsg) apply(m *Model) tea.Cmd {
	name := mcp.Printable(msg.ask.Name)
	switch {
	case msg.choice == overlay.MCPNever && msg.err != nil:
		m.chat.notice(noticeError, "MCP server "+name+": record that you declined it: "+msg.err.Error(), "it stays off; the next start asks again")
	case msg.choice == overlay.MCPNever:
		m.chat.notice(noticeInfo, "MCP server "+name+" stays off in this project: no start asks again until its entry changes; `agent mcp approve "+name+"` starts it.", "")
	case msg.err != nil:
		m.chat.notice(noticeError, "MCP server "+name+": record the approval: "+msg.err.Error(), "it starts for this chat only; the next start asks again")
	case msg.started:
		m.chat.notice(noticeInfo, "MCP server "+name+" approved: it is starting, and its tools join from the next step.", "")
	default:
		m.chat.notice(noticeInfo, "MCP server "+name+" approved: it starts with the next chat.", "")
	}
	return nil
}

// chosen acts on the answer to the question about msg.Ask: the
// approvals are written, and the server started, off the Update loop;
// "not now" only says so in chat.
func (a *mcpAsking) chosen(msg overlay.MCPChosenMsg, st *approval.Store, servers *mcp.Servers, chat *chatView) tea.Cmd {
	ask, c := msg.Ask, msg.Choice
	switch c {
	case overlay.MCPApprove:
		return func() tea.Msg {
			err := mcp.Approve(st, ask.Name, ask.Spec)
			// Approved even when the record failed: the user said so.
			return mcpAnsweredMsg{ask: ask, choice: c, err: err, started: servers.Allow(ask.Name)}
		}
	case overlay.MCPNever:
		return func() tea.Msg {
			return mcpAnsweredMsg{ask: ask, choice: c, err: mcp.Decline(st, ask.Name, ask.Spec)}
		}
	}
	name := mcp.Printable(ask.Name)
	chat.notice(noticeInfo, "MCP server "+name+" stays off for now: the next start asks again (or run `agent mcp approve "+name+"`).", "")
	return nil
}
