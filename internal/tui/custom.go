package tui

// Custom slash commands (issue 19): Markdown prompt templates from the
// project's .agent/commands/ and the user's config dir (internal/commands).
// The chat reads none at start-up: the catalog is scanned, off the Update
// loop, when the completion popup opens, when /help opens and on every use,
// so a new or edited file shows up without a restart. Completion and /help
// list them after the built-in commands (a built-in always wins a name);
// "/name args" is expanded when it is sent and the expansion goes the way
// typed text does (steering or queued while the agent works, its @path
// mentions attached by the loop); the history keeps what was typed. Each
// notice of the catalog (a file skipped, a name taken by a built-in) is
// shown once.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	usercmd "github.com/ctxloop/agent/internal/commands"
	"github.com/ctxloop/agent/internal/message"
)

// CommandNames are the chat's built-in commands, which a custom command
// cannot take.
func CommandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// customState is what the chat knows of the custom commands: the last
// scan, whether one is running, the notices already shown, and whether
// the completion popup was open at the last update (a scan starts when it
// opens).
type customState struct {
	set       usercmd.Set
	loaded    bool
	scanning  bool
	popupOpen bool
	shown     map[string]bool
}

// Messages of the custom commands.
type (
	customLoadedMsg struct{ set usercmd.Set }
	// customResolvedMsg is a "/name args" looked up and expanded: found
	// false when no command has the name.
	customResolvedMsg struct {
		shown, text, expanded string
		kind                  message.QueueKind
		found                 bool
		set                   usercmd.Set
	}
)

// customScan starts a scan of the catalog unless one is running.
func (m *Model) customScan() tea.Cmd {
	cat := m.opt.Commands
	if cat == nil || m.custom.scanning {
		return nil
	}
	m.custom.scanning = true
	return func() tea.Msg { return customLoadedMsg{set: cat.Load()} }
}

// customPopupScan starts a scan when the completion popup opens.
func (m *Model) customPopupScan() tea.Cmd {
	v := m.editor.value()
	open := strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n")
	opening := open && !m.custom.popupOpen
	m.custom.popupOpen = open
	if !opening {
		return nil
	}
	return m.customScan()
}

func (m *Model) handleCustomLoaded(msg customLoadedMsg) {
	m.custom.scanning = false
	m.applyCustom(msg.set)
}

// applyCustom takes a scan's result: the popup's entries, and the notices
// not shown yet.
func (m *Model) applyCustom(set usercmd.Set) {
	m.custom.set, m.custom.loaded = set, true
	m.editor.custom = m.editor.custom[:0]
	for _, c := range set.Commands {
		help := c.Description
		if help != "" {
			help += " · "
		}
		m.editor.custom = append(m.editor.custom, command{name: c.Name, args: c.ArgumentHint, help: help + c.Source, custom: true})
	}
	if m.custom.shown == nil {
		m.custom.shown = map[string]bool{}
	}
	for _, n := range set.Notices {
		if !m.custom.shown[n] {
			m.custom.shown[n] = true
			m.notice(noticeWarn, n, "")
		}
	}
}

// submitCustom handles "/name args" that is no built-in command: the
// catalog is read and the command expanded off the Update loop. ok is
// false when there is no catalog or text is no invocation.
func (m *Model) submitCustom(shown, text string, kind message.QueueKind) (tea.Cmd, bool) {
	cat := m.opt.Commands
	name, args, ok := usercmd.Invocation(text)
	if cat == nil || !ok {
		return nil, false
	}
	return func() tea.Msg {
		cmd, set, found := cat.Lookup(name)
		msg := customResolvedMsg{shown: shown, text: text, kind: kind, found: found, set: set}
		if found {
			msg.expanded = usercmd.Expand(cmd.Body, args, usercmd.SplitArgs(args))
		}
		return msg
	}, true
}

// handleCustomResolved sends an expanded command as typed text, or says
// the command is unknown. The editor still holds what was typed; if it
// changed meanwhile, nothing is sent.
func (m *Model) handleCustomResolved(msg customResolvedMsg) tea.Cmd {
	m.applyCustom(msg.set)
	name := strings.Fields(msg.text)[0]
	if !msg.found {
		return m.unknownCommand(msg.text)
	}
	if m.editor.value() != msg.shown {
		return m.setFlash(name+" not sent: the editor changed while it loaded", 3*time.Second)
	}
	if strings.TrimSpace(msg.expanded) == "" {
		return m.setFlash(name+" is empty: nothing to send", 3*time.Second)
	}
	return m.sendText(msg.shown, msg.expanded, msg.kind)
}

// pickCustom is Enter on a custom command in the popup: one that takes
// arguments is completed for them to be typed, one that takes none is
// sent.
func (m *Model) pickCustom(c command) tea.Cmd {
	if c.args != "" {
		m.editor.setValue("/" + c.name + " ")
		return nil
	}
	m.editor.setValue("/" + c.name)
	return m.submit()
}

// customHelpLines is /help's section on the custom commands.
func (m *Model) customHelpLines() []string {
	th := m.th
	if m.opt.Commands == nil {
		return nil
	}
	out := []string{"", th.key.Render("Custom commands") + th.dim.Render(" · .agent/commands/ (project) and ~/.config/agent/commands/ (user)")}
	switch {
	case !m.custom.loaded:
		return append(out, th.dim.Render("loading…"))
	case len(m.custom.set.Commands) == 0:
		return append(out, th.dim.Render("none yet: review.md there is /review, git/commit.md is /git:commit"))
	}
	row := func(c usercmd.Command) string {
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		name = fmt.Sprintf("%-18s", name)
		desc := c.Description
		if desc != "" {
			desc += " "
		}
		if c.ShadowedBy != "" {
			// Not usable: the user's command of the same name wins.
			return th.dim.Render(name + " " + desc + "· " + c.Source + ", shadowed by yours")
		}
		from := c.Source
		if c.Overrides != "" {
			from += ", overrides " + c.OverridesSource
		}
		return th.key.Render(name) + " " + desc + th.dim.Render("· "+from)
	}
	for _, c := range m.custom.set.Commands {
		out = append(out, row(c))
		for _, sh := range m.custom.set.Shadowed {
			if sh.Name == c.Name {
				out = append(out, row(sh))
			}
		}
	}
	return out
}
