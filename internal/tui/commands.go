package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// command is a slash command.
type command struct {
	name string
	args string
	help string
	// custom marks a custom command (custom.go).
	custom bool
}

// commands are the slash commands, in the order the popup and /help list
// them.
var commands = []command{
	{name: "context", help: "where the context tokens go (the calculator's snapshot)"},
	{name: "compact", args: "[focus]", help: "summarise the conversation now, optionally focused; --preview shows the plan without a request; /compact undo restores what the last one replaced"},
	{name: "summarise", help: "summarise what came before or after a message you pick; the rest stays verbatim"},
	{name: "summary", args: "edit", help: "edit the newest summary ($EDITOR when set); later requests carry your text"},
	{name: "pin", args: "[text]", help: "pin a fact (or the selected message) sent word for word after every summary"},
	{name: "pins", help: "list, edit and remove the pinned facts"},
	{name: "memory", help: "the facts kept across sessions (this project's and yours): edit, pin, accept or reject proposed ones, delete"},
	{name: "new", help: "start a new session"},
	{name: "sessions", help: "browse this directory's sessions (type to search their history) and resume one; ctrl+r renames, ctrl+d deletes"},
	{name: "model", args: "[name]", help: "switch the model of this session"},
	{name: "effort", args: "[level]", help: "show or set the reasoning effort (minimal, low, medium, high; default: the config's) and the model's levels"},
	{name: "plan", args: "[show|edit|run]", help: "switch plan mode (shift+tab): read-only tools only; show, edit ($EDITOR when set) or approve and run the latest plan"},
	{name: "lsp", help: "show the language servers whose diagnostics follow each edit: state, files, last error"},
	{name: "sandbox", args: "[mode]", help: "show or set the OS sandbox of commands: off, read-only or workspace-write (commands in it run without asking)"},
	{name: "budget", args: "[USD]", help: "show or set this session's spending cap (0: none); the config's budget sets it for new sessions"},
	{name: "queue", help: "edit, delete or reorder queued messages"},
	{name: "mcp", help: "the MCP servers: status, tools, last error; enter restarts one"},
	{name: "skills", help: "the skills (SKILL.md folders): source, approved, size, why a broken one is not loaded; a approves a project's"},
	{name: "jobs", args: "[kill [id]]", help: "the background processes: list and stop them; /jobs kill stops them all (so does esc twice)"},
	{name: "undo", help: "revert the last turn's file changes and put its message back in the editor"},
	{name: "redo", help: "reapply what the last /undo or /rewind took back"},
	{name: "rewind", help: "take the session back to before a message: code, conversation or both"},
	{name: "diff", args: "[N]", help: "the last turn's changes to the files (N: turn N)"},
	{name: "fork", help: "copy the session (all, or up to a turn) into a new one and switch to it"},
	{name: "expand", args: "[all]", help: "expand or collapse the focused card (all: every card)"},
	{name: "find", args: "[text]", help: "search the conversation (ctrl+f)"},
	{name: "copy", args: "[code]", help: "copy the selected message, or its last code block, via OSC 52 (alt+y)"},
	{name: "help", help: "keys and commands"},
	{name: "quit", help: "leave (the session is saved)"},
}

// matchCommands returns the commands whose name starts with prefix.
func matchCommands(prefix string) []command {
	var out []command
	for _, c := range commands {
		if strings.HasPrefix(c.name, strings.ToLower(prefix)) {
			out = append(out, c)
		}
	}
	return out
}

// parseCommand recognises "/name args" for a known command.
func parseCommand(text string) (name, arg string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name, arg, _ = strings.Cut(text[1:], " ")
	name = strings.ToLower(strings.TrimSpace(name))
	for _, c := range commands {
		if c.name == name {
			return name, strings.TrimSpace(arg), true
		}
	}
	return "", "", false
}

// runCommand runs a slash command.
func (m *Model) runCommand(name, arg string) tea.Cmd {
	switch name {
	case "context":
		m.drawer = &contextDrawer{}
		// In turn: RestoreCost holds the runner, and Preview would find it
		// busy.
		// Neither while a turn runs.
		if r := m.runner; r != nil && !m.busy && !m.compacting {
			return tea.Sequence(contextPreviewCmd(r, m.snap), restoreCostCmd(r))
		}
		return tea.Sequence(nil, nil)
	case "compact":
		if arg == "undo" {
			return m.undoCompactCmd()
		}
		if focus, ok := previewArg(arg); ok {
			return m.compactPreviewCmd(focus)
		}
		return m.compactCmd(arg)
	case "summarise":
		return m.openSummarise()
	case "summary":
		return m.summaryCmd(arg)
	case "pin":
		return m.pinCmd(arg)
	case "pins":
		m.drawer = newPinsDrawer()
	case "memory":
		d, cmd := openMemoryPanel(m) // memorypanel.go
		m.drawer = d
		return cmd
	case "new":
		if cmd := m.refuseSwitch(); cmd != nil {
			return cmd
		}
		m.resetConversation()
		m.showWelcome()
		return m.leaveSession()
	case "mcp":
		m.drawer = mcpPanel(m.opt.MCP) // mcpwatch.go
	case "sessions":
		if cmd := m.refuseSwitch(); cmd != nil {
			return cmd
		}
		d := newSessionPicker(m)
		m.drawer = d
		return d.load(m)
	case "model":
		if arg != "" {
			return m.switchModel(arg, "")
		}
		d := newModelPicker("Model")
		m.drawer = d
		return d.load(m)
	case "effort":
		m.chat.add(effortNotice(m.opt.Loop.Effort, m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), arg)) // effort.go
	case "plan":
		return planCommand(m, arg) // planmode.go
	case "sandbox":
		m.chat.add(sandboxNotice(m.opt.Loop.Sandbox, arg)) // sandbox.go
	case "lsp":
		if d, n := lspCommand(m.opt.Loop.LSP, m.opt.Loop.Config); d != nil { // lsp.go
			m.drawer = d
		} else {
			m.chat.add(n)
		}
	case "budget":
		m.budgetCmd(arg)
	case "undo", "redo", "rewind", "diff", "fork":
		return m.checkpointCommand(name, arg)
	case "queue":
		m.drawer = newQueueDrawer()
	case "skills":
		return skillsCommand(m.opt.Loop.Skills.Catalog(), m.opt.Approvals) // skills.go
	case "jobs":
		d, cmd := jobsCommand(m.opt.Loop.Jobs, arg) // jobs.go
		if d != nil {
			m.drawer = d
		}
		return cmd
	case "expand":
		if strings.EqualFold(arg, "all") {
			m.rc.toggleAll()
		} else {
			return m.toggleFocused()
		}
	case "find":
		return m.openFind(arg)
	case "copy":
		return m.copySelected(strings.EqualFold(arg, "code"))
	case "help":
		m.drawer = newHelpDrawer()
		return m.custom.scan(m.opt.Commands) // custom.go
	case "quit":
		return tea.Quit
	}
	return nil
}

// refuseSwitch refuses to leave the session while a turn runs.
func (m *Model) refuseSwitch() tea.Cmd {
	switch {
	case m.busy || m.compacting:
		return m.setFlash("the agent is busy: press esc to interrupt it first", 3*time.Second)
	case m.opening && m.runner == nil && m.openErr == nil:
		return m.setFlash("a session is opening…", 2*time.Second)
	}
	return nil
}

// resetConversation empties the view for another session.
func (m *Model) resetConversation() {
	m.chat.reset()
	m.welcome = nil
	m.compaction = compactions{}
	clear(m.parts)
	clear(m.msgs)
	m.queue = nil
	m.questions.Clear()
	m.sess = message.Session{Model: sessionModel(m.sess, m.opt.Loop.Config)}
	m.snap = tokens.Reading{}
	m.lastUsage = message.Usage{}
}

// switchModel switches to the model name; why, when set, says why it was
// chosen ("the only model … offers") in the one notice it leaves.
func (m *Model) switchModel(name, why string) tea.Cmd {
	if m.runner == nil && m.fresh && m.opt.Loop.Config != nil {
		// No session yet: the new one will use this model.
		cfg := *m.opt.Loop.Config
		cfg.Model, cfg.ModelConfigured = name, true
		m.opt.Loop.Config = &cfg
		m.sess.Model = name
		text, hint := "model: "+name, ""
		if why != "" {
			text, hint = text+", "+why, "/model switches it."
		}
		if _, known := cfg.ModelInfo(name); !known {
			m.chat.notice(noticeWarn, text, strings.TrimSpace(unknownModelHint(name)+" "+hint))
		} else {
			m.chat.notice(noticeInfo, text, hint)
		}
		return rememberModel(&cfg, m.opt.Loop.Dir, name) // lastmodel.go
	}
	if m.runner == nil {
		return m.setFlash("no session is open yet", 2*time.Second)
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end or press esc, then switch", 3*time.Second)
	}
	r := m.runner
	return func() tea.Msg {
		return modelSetMsg{name: name, err: r.SetModel(context.Background(), name)}
	}
}
