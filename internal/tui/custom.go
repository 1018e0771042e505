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

// scan starts a scan of cat unless one is running (or cat is nil).
func (c *customState) scan(cat *usercmd.Catalog) tea.Cmd {
	if cat == nil || c.scanning {
		return nil
	}
	c.scanning = true
	return func() tea.Msg { return customLoadedMsg{set: cat.Load()} }
}

// popupScan starts a scan of cat when the completion popup opens, as the
// editor's value v shows.
func (c *customState) popupScan(cat *usercmd.Catalog, v string) tea.Cmd {
	open := strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n")
	opening := open && !c.popupOpen
	c.popupOpen = open
	if !opening {
		return nil
	}
	return c.scan(cat)
}

// take keeps a scan's result and returns the popup's entries for it into
// entries[:0], and the notices not shown yet.
func (c *customState) take(set usercmd.Set, entries []command) ([]command, []string) {
	c.set, c.loaded = set, true
	entries = entries[:0]
	for _, cmd := range set.Commands {
		help := cmd.Description
		if help != "" {
			help += " · "
		}
		entries = append(entries, command{name: cmd.Name, args: cmd.ArgumentHint, help: help + cmd.Source, custom: true})
	}
	if c.shown == nil {
		c.shown = map[string]bool{}
	}
	var notices []string
	for _, n := range set.Notices {
		if !c.shown[n] {
			c.shown[n] = true
			notices = append(notices, n)
		}
	}
	return entries, notices
}

// applyCustom takes a scan's result: the popup's entries, and the notices
// not shown yet.
func (m *Model) applyCustom(set usercmd.Set) {
	var notices []string
	m.editor.custom, notices = m.custom.take(set, m.editor.custom)
	for _, n := range notices {
		m.chat.notice(noticeWarn, n, "")
	}
}

// resolveCustom handles "/name args" that is no built-in command: cat is
// read and the command expanded off the Update loop. ok is false when
// there is no catalog or text is no invocation.
func resolveCustom(cat *usercmd.Catalog, shown, text string, kind message.QueueKind) (tea.Cmd, bool) {
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
	return m.submitAs(message.KindSteer)
}

// helpLines is /help's section on the custom commands (none without a
// catalog).
func (cs *customState) helpLines(th *theme, cat *usercmd.Catalog) []string {
	if cat == nil {
		return nil
	}
	out := []string{"", th.Key.Render("Custom commands") + th.Dim.Render(" · .agent/commands/ (project) and ~/.config/agent/commands/ (user)")}
	switch {
	case !cs.loaded:
		return append(out, th.Dim.Render("loading…"))
	case len(cs.set.Commands) == 0:
		return append(out, th.Dim.Render("none yet: review.md there is /review, git/commit.md is /git:commit"))
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
			return th.Dim.Render(name + " " + desc + "· " + c.Source + ", shadowed by yours")
		}
		from := c.Source
		if c.Overrides != "" {
			from += ", overrides " + c.OverridesSource
		}
		return th.Key.Render(name) + " " + desc + th.Dim.Render("· "+from)
	}
	for _, c := range cs.set.Commands {
		out = append(out, row(c))
		for _, sh := range cs.set.Shadowed {
			if sh.Name == c.Name {
				out = append(out, row(sh))
			}
		}
	}
	return out
}
