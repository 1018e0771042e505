package tui

// A project's MCP servers ask before they start. A server a project file
// (.agent/config.json) declares waits ("needs approval") until the user
// approves that very entry. The chat asks about each such server once per
// start, one dialog at a time, with the question machinery of dialogs.go
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
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
)

// mcpAsking is where the chat stands with the servers waiting for approval.
type mcpAsking struct {
	scanned bool       // the scan for waiting servers was started
	known   bool       // and its result has arrived
	queue   []mcpAsk   // servers found waiting, not asked yet
	shown   *mcpDialog // the question asked, until it is answered
}

// mcpAsk is a server to ask about: its name and its entry.
type mcpAsk struct {
	name string
	spec config.MCPServer
}

// The answers of the MCP question, in button order.
const (
	mcpApprove = iota
	mcpNotNow
	mcpNever
	mcpChoices
)

var mcpShortcuts = map[string]int{"alt+a": mcpApprove, "alt+n": mcpNotNow, "alt+x": mcpNever}

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
		i := slices.Index(m.questions.list, drawer(a.shown))
		switch {
		case i < 0:
			// Dropped with the conversation (/new, another session):
			// asked again when the chat is idle.
			a.queue = append([]mcpAsk{a.shown.ask}, a.queue...)
			a.shown = nil
		case i == 0 && len(m.questions.list) > 1 && !m.questions.focused:
			// The loop asked something meanwhile: its turn waits for the
			// answer, this question does not.
			copy(m.questions.list, m.questions.list[1:])
			m.questions.list[len(m.questions.list)-1] = a.shown
			return nil
		default:
			return nil
		}
	}
	if len(a.queue) == 0 || !m.mcpIdle() {
		return nil
	}
	a.shown = newMCPDialog(a.queue[0])
	a.queue = a.queue[1:]
	m.questions.list = append(m.questions.list, a.shown)
	return nil
}

// mcpIdle reports whether a question may open now: the first frame is
// drawn and nothing else wants the user.
func (m *Model) mcpIdle() bool {
	return m.sized && !m.opening && !m.busy && !m.compacting && len(m.questions.list) == 0 && m.drawer == nil
}

// mcpScannedMsg are the servers waiting for approval.
type mcpScannedMsg struct{ asks []mcpAsk }

func (msg mcpScannedMsg) apply(m *Model) tea.Cmd {
	m.mcpAsking.queue = append(m.mcpAsking.queue, msg.asks...)
	m.mcpAsking.known = true
	return nil
}

// scanMCPApprovals finds the servers waiting for approval that the user
// has not declined.
func scanMCPApprovals(servers *mcp.Servers, st *approval.Store) tea.Cmd {
	return func() tea.Msg {
		var asks []mcpAsk
		for _, s := range servers.Status() {
			if s.State != mcp.StateNeedsApproval {
				continue
			}
			spec, ok := servers.Spec(s.Name)
			if !ok || mcp.Declined(st, s.Name, spec) {
				continue
			}
			asks = append(asks, mcpAsk{name: s.Name, spec: spec})
		}
		return mcpScannedMsg{asks: asks}
	}
}

// mcpAnsweredMsg is what came of an answer that wrote the approvals.
type mcpAnsweredMsg struct {
	ask     mcpAsk
	choice  int
	err     error
	started bool // approve: Allow started the server
}

func (msg mcpAnsweredMsg) apply(m *Model) tea.Cmd {
	name := mcp.Printable(msg.ask.name)
	switch {
	case msg.choice == mcpNever && msg.err != nil:
		m.chat.notice(noticeError, "MCP server "+name+": record that you declined it: "+msg.err.Error(), "it stays off; the next start asks again")
	case msg.choice == mcpNever:
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

// mcpDialog asks whether a project's server may start.
type mcpDialog struct {
	ask mcpAsk
	row choiceRow
}

// newMCPDialog asks ask, "approve and start" highlighted.
func newMCPDialog(a mcpAsk) *mcpDialog {
	return &mcpDialog{ask: a, row: choiceRow{n: mcpChoices, shortcuts: mcpShortcuts}}
}

func (d *mcpDialog) abandoned() bool { return false }

func (d *mcpDialog) approving() bool { return d.row.sel == mcpApprove }

func (d *mcpDialog) shortcut(key string) bool { return d.row.shortcut(key) }

// choose acts on an answer; the approvals are written off the Update loop.
func (d *mcpDialog) choose(m *Model, c int) (drawerResult, tea.Cmd) {
	m.mcpAsking.shown = nil
	ask, st, servers := d.ask, m.opt.Approvals, m.opt.MCP
	switch c {
	case mcpApprove:
		return drawerClose, func() tea.Msg {
			err := mcp.Approve(st, ask.name, ask.spec)
			// Approved even when the record failed: the user said so.
			return mcpAnsweredMsg{ask: ask, choice: c, err: err, started: servers.Allow(ask.name)}
		}
	case mcpNever:
		return drawerClose, func() tea.Msg {
			return mcpAnsweredMsg{ask: ask, choice: c, err: mcp.Decline(st, ask.name, ask.spec)}
		}
	}
	name := mcp.Printable(ask.name)
	m.chat.notice(noticeInfo, "MCP server "+name+" stays off for now: the next start asks again (or run `agent mcp approve "+name+"`).", "")
	return drawerClose, nil
}

func (d *mcpDialog) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		return d.choose(m, c)
	}
	if s == "esc" {
		return drawerPass, nil
	}
	return drawerKeep, nil
}

func (d *mcpDialog) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	spec := d.ask.spec
	var body []string
	add := func(style func(...string) string, indent, s string) {
		for _, l := range wrapText(s, inner-len(indent)) {
			body = append(body, indent+style(l))
		}
	}
	plain := func(s ...string) string { return strings.Join(s, "") }
	add(plain, "", mcp.Printable(spec.Project)+" declares the MCP server "+mcp.Printable(d.ask.name)+
		", which starts only once you approve it.")
	if spec.URL != "" {
		add(plain, "", "It would connect to:")
	} else {
		add(plain, "", "It would run, as you, in this directory:")
	}
	add(th.AccentText.Render, "  ", mcp.CommandLine(spec))
	if mcp.RunsProjectFile(spec) {
		add(th.Dim.Render, "", "(a file of the project: the repository's own code runs)")
	}
	if sends := mcp.Sends(spec); len(sends) > 0 {
		add(plain, "", "with, as written:")
		for _, l := range sends {
			add(plain, "  ", l)
		}
	}
	add(th.Dim.Render, "", "Its tools ask before they run, as other tools do.")
	body = append(body, "")
	body = append(body, d.row.view(th, []string{"approve and start · alt+a", "not now · alt+n", "never for this project · alt+x"}, m.questions.focused, inner)...)
	footer := m.questions.footer("typing goes to the editor · tab answers here · alt+a approve · alt+n not now",
		"←→ choose · enter confirms · esc back to the editor")
	return m.questions.frame(m.th, "MCP server", clampBody(body, height, len(body)-1), footer, width)
}
