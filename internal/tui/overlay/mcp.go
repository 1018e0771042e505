package overlay

// The MCP question: may a server a project file declares start. It
// answers as every question does (questions.go) and does nothing itself:
// the choice comes back as an MCPChosenMsg, and the chat records it and
// starts the server (internal/tui mcpapproval.go).

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// MCPAsk is a server to ask about: its name and its entry.
type MCPAsk struct {
	Name string
	Spec config.MCPServer
}

// MCPChoice is an answer of the MCP question.
type MCPChoice int

// The answers of the MCP question, in button order.
const (
	MCPApprove MCPChoice = iota // approve and start
	MCPNotNow                   // ask again at the next start
	MCPNever                    // never for this project (until the entry changes)
	mcpChoices
)

var mcpShortcuts = map[string]int{"alt+a": int(MCPApprove), "alt+n": int(MCPNotNow), "alt+x": int(MCPNever)}

// MCPChosenMsg says the user answered the question about Ask.
type MCPChosenMsg struct {
	Ask    MCPAsk
	Choice MCPChoice
}

// MCPDialog asks whether a project's server may start.
type MCPDialog struct {
	ask      MCPAsk
	row      choiceRow
	answered bool
}

// NewMCPDialog asks a, "approve and start" highlighted.
func NewMCPDialog(a MCPAsk) *MCPDialog {
	return &MCPDialog{ask: a, row: choiceRow{n: int(mcpChoices), shortcuts: mcpShortcuts}}
}

// Ask is the server asked about.
func (d *MCPDialog) Ask() MCPAsk { return d.ask }

// Answered reports whether the user answered (the question then closed).
func (d *MCPDialog) Answered() bool { return d.answered }

// Abandoned is false: no turn waits for the answer.
func (d *MCPDialog) Abandoned() bool { return false }

func (d *MCPDialog) Approving() bool { return MCPChoice(d.row.sel) == MCPApprove }

func (d *MCPDialog) Shortcut(key string) bool { return d.row.shortcut(key) }

func (d *MCPDialog) Update(h Host, qs *Questions, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		d.answered = true
		chosen := MCPChosenMsg{Ask: d.ask, Choice: MCPChoice(c)}
		return Close, func() tea.Msg { return chosen }
	}
	if s == "esc" {
		return Pass, nil
	}
	return Keep, nil
}

func (d *MCPDialog) View(h Host, qs *Questions, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	spec := d.ask.Spec
	var body []string
	add := func(style func(...string) string, indent, s string) {
		for _, l := range theme.Wrap(s, inner-len(indent)) {
			body = append(body, indent+style(l))
		}
	}
	plain := func(s ...string) string { return strings.Join(s, "") }
	add(plain, "", mcp.Printable(spec.Project)+" declares the MCP server "+mcp.Printable(d.ask.Name)+
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
	body = append(body, d.row.view(th, []string{"approve and start · alt+a", "not now · alt+n", "never for this project · alt+x"}, qs.focused, inner)...)
	footer := qs.footer("typing goes to the editor · tab answers here · alt+a approve · alt+n not now",
		"←→ choose · enter confirms · esc back to the editor")
	return qs.frame(th, "MCP server", theme.ClampBody(body, height, len(body)-1), footer, width)
}
