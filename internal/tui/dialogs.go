package tui

// The loop's questions: may this tool call run (with the diff of an edit
// or a write before consent), and should a repeated call run again.
//
// A question must not be answerable by accident. It opens under the
// user's fingers while they type, so it does not take the keyboard:
// typed text keeps going to the editor (nothing is lost) and the terminal
// bell rings. It answers only
//   - a modified key shown on its buttons (alt+a, alt+s, alt+d, …), or
//   - Enter over a highlighted choice, once the user gave it focus with
//     Tab (Shift+Tab) — on a choice that lets something run, only once
//     the highlight stood still for dialogGrace (dialoggate.go); Esc
//     gives focus back to the editor.
// Both wait dialogGrace after the question appears. A denial asks for a
// one-line reason (sent to the model as the tool's result) and can stop
// the turn.

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/tui/diffview"
)

// question is a dialog from the loop.
type question interface {
	drawer
	// shortcut reports whether key (as tea.KeyPressMsg.String names it)
	// answers the question without focus.
	shortcut(key string) bool
	abandoned() bool
	// approving reports whether Enter now would let something run: the
	// highlighted choice allows, approves or continues (dialoggate.go).
	approving() bool
}

// bell rings the terminal's bell: a question wants the user.
var bell = tea.Raw("\a")

// focusKey reports whether key moves the focus to an open question.
func focusKey(key string) bool { return key == "tab" || key == "shift+tab" }

// buttons lays out choices, wrapping them when the line is narrow; sel
// is highlighted (-1 for none).
func buttons(th *theme, labels []string, sel, width int) []string {
	var out []string
	line := ""
	for i, l := range labels {
		b := " " + l + " "
		if i == sel {
			b = th.Selected.Render(b)
		} else {
			b = th.AccentText.Render(b)
		}
		if line != "" && ansi.StringWidth(line)+ansi.StringWidth(b)+1 > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += b
	}
	return append(out, line)
}

// The choices of a permission question, in button order.
const (
	choiceAllowOnce = iota
	choiceAllowSession
	choiceDeny
	choiceDenyStop
)

// permissionShortcuts are the modified keys of the choices.
var permissionShortcuts = map[int]string{
	choiceAllowOnce: "alt+a", choiceAllowSession: "alt+s", choiceDeny: "alt+d", choiceDenyStop: "alt+x",
}

// permissionChoicesFor are the choices a request offers, in button order:
// a write to a file that runs as code (tools.Request.RunsCode) is never
// allowed for the session, so it has no such choice.
func permissionChoicesFor(req tools.Request) []int {
	if req.RunsCode {
		return []int{choiceAllowOnce, choiceDeny, choiceDenyStop}
	}
	return []int{choiceAllowOnce, choiceAllowSession, choiceDeny, choiceDenyStop}
}

// permissionDialog asks whether a tool call may run.
type permissionDialog struct {
	ask permissionAsk
	// choices are the choices offered (permissionChoicesFor); row
	// indexes them (row.sel is also the denial chosen).
	choices []int
	row     choiceRow
	// scroll is the first diff row shown.
	scroll int
	// reason is the denial's reason being typed (nil until the user
	// chose to deny); stop is whether that denial stops the turn.
	reason *textinput.Model
	stop   bool

	diff      []diffview.Line
	diffRows  []string // rendered for diffWidth and diffTheme
	diffWidth int
	diffTheme *theme
}

func newPermissionDialog(a permissionAsk) *permissionDialog {
	choices := permissionChoicesFor(a.req)
	keys := make(map[string]int, len(choices))
	for i, c := range choices {
		keys[permissionShortcuts[c]] = i
	}
	return &permissionDialog{ask: a, diff: diffview.Parse(a.req.Diff), choices: choices,
		row: choiceRow{n: len(choices), shortcuts: keys}}
}

// chosen is the highlighted choice.
func (d *permissionDialog) chosen() int { return d.choices[d.row.sel] }

func (d *permissionDialog) abandoned() bool {
	select {
	case <-d.ask.done:
		return true
	default:
		return false
	}
}

func (d *permissionDialog) approving() bool {
	return d.reason == nil && (d.chosen() == choiceAllowOnce || d.chosen() == choiceAllowSession)
}

func (d *permissionDialog) shortcut(key string) bool { return d.row.shortcut(key) }

func (d *permissionDialog) answer(a tools.Answer) (drawerResult, tea.Cmd) {
	d.ask.reply <- a
	return drawerClose, nil
}

// choose acts on the choice at index i of the row: allowing answers;
// denying opens the reason.
func (d *permissionDialog) choose(m *Model, i int) (drawerResult, tea.Cmd) {
	c := d.choices[i]
	switch c {
	case choiceAllowOnce:
		return d.answer(tools.Answer{Reply: tools.AllowOnce})
	case choiceAllowSession:
		return d.answer(tools.Answer{Reply: tools.AllowSession})
	}
	ti := textinput.New()
	ti.Prompt = "reason › "
	ti.Placeholder = "optional: what the model should do instead"
	ti.CharLimit = 500
	ti.SetWidth(max(10, m.width-16))
	cmd := ti.Focus()
	d.reason, d.stop, d.row.sel = &ti, c == choiceDenyStop, i
	m.questions.focused = true
	return drawerKeep, cmd
}

func (d *permissionDialog) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	if d.reason != nil {
		if k, ok := msg.(tea.KeyPressMsg); ok {
			switch k.String() {
			case "enter":
				return d.answer(tools.Answer{Reply: tools.Deny, Reason: strings.TrimSpace(d.reason.Value()), StopTurn: d.stop})
			case "esc":
				d.reason = nil
				return drawerKeep, nil
			}
		}
		ti, cmd := d.reason.Update(msg)
		d.reason = &ti
		return drawerKeep, cmd
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		return d.choose(m, c)
	}
	switch s {
	case "up":
		d.scroll = max(0, d.scroll-1)
	case "down":
		d.scroll++
	case "pgup":
		d.scroll = max(0, d.scroll-10)
	case "pgdown":
		d.scroll += 10
	case "esc":
		return drawerPass, nil
	}
	return drawerKeep, nil
}

// diffLines renders the diff for width, cached.
func (d *permissionDialog) diffLines(th *theme, width int) []string {
	if d.diffRows == nil || d.diffWidth != width || d.diffTheme != th {
		d.diffRows = diffview.RenderLines(d.diff, width, diffview.Auto, th.Diff)
		d.diffWidth, d.diffTheme = width, th
	}
	return d.diffRows
}

func (d *permissionDialog) view(m *Model, width, height int) []string {
	th := m.th
	req := d.ask.req
	inner := max(10, width-4)
	var head []string
	if req.Command != "" {
		head = append(head, "Allow "+th.Bold.Render(req.Tool)+" to run:")
		for _, l := range wrapText(termsafe.Strip(req.Command), inner-2) {
			head = append(head, "  "+th.AccentText.Render(l))
		}
		// Every simple command, wherever the line hides it (a loop body,
		// a case arm, a substitution).
		if len(req.Commands) > 1 || len(req.Commands) == 1 && req.Commands[0] != strings.TrimSpace(req.Command) {
			head = append(head, th.Dim.Render("which runs:"))
			for _, c := range req.Commands {
				head = append(head, "  • "+oneLine(termsafe.Strip(c), inner-4))
			}
		}
	} else {
		title := termsafe.Strip(req.Title)
		if title == "" {
			title = req.Tool
		}
		head = append(head, "Allow "+th.Bold.Render(oneLine(title, inner-8))+"?")
	}
	if req.Reason != "" {
		for _, l := range wrapText("("+termsafe.Strip(req.Reason)+")", inner) {
			head = append(head, th.Dim.Render(l))
		}
	}
	if req.From != "" {
		head = append(head, th.Dim.Render(oneLine("asked by "+termsafe.Strip(req.From), inner)))
	}
	session := "allow for this session"
	switch {
	case req.Tool == "bash" && len(req.Prefixes) > 0:
		session = "allow " + strings.Join(req.Prefixes, ", ") + " for this session"
	case req.Tool == "bash":
		session = "allow this command for this session"
	case req.Outside:
		session = "allow " + req.Tool + " outside the directory for this session"
	default:
		session = "allow " + req.Tool + " for this session"
	}
	if req.RunsCode {
		head = append(head, th.Dim.Render(oneLine("a file that runs as code is never allowed for the session", inner)))
	}
	label := map[int]string{choiceAllowOnce: "allow once", choiceAllowSession: session, choiceDeny: "deny…", choiceDenyStop: "deny and stop the turn"}
	labels := make([]string, len(d.choices))
	for i, c := range d.choices {
		labels[i] = label[c] + " · " + permissionShortcuts[c]
	}
	tail := append([]string{""}, d.row.view(th, labels, m.questions.focused, inner)...)
	if d.reason != nil {
		what := "Deny"
		if d.stop {
			what = "Deny and stop the turn"
		}
		tail = append(tail, th.WarnText.Render(what+": a line for the model (enter sends, esc goes back)"), d.reason.View())
	}

	body := head
	if rows := d.diffLines(th, inner); len(rows) > 0 {
		room := max(3, height-2-len(head)-len(tail)-1)
		if len(rows) <= room {
			d.scroll = 0
			body = append(body, rows...)
		} else {
			room = max(1, room-1) // a line says what is hidden
			d.scroll = min(d.scroll, len(rows)-room)
			body = append(body, rows[d.scroll:d.scroll+room]...)
			body = append(body, th.Dim.Render(fmt.Sprintf("lines %d–%d of %d · tab, then ↑↓ pgup pgdn scroll the diff", d.scroll+1, d.scroll+room, len(rows))))
		}
	}
	body = append(body, tail...)
	footer := m.questions.footer("typing goes to the editor · tab answers here · alt+a allow · alt+d deny",
		"←→ choose · enter confirms · ↑↓ scroll · esc back to the editor")
	if d.reason != nil {
		footer = "enter denies · esc back"
	}
	return m.questions.frame(m.th, "Permission", clampBody(body, height, len(body)-1), footer, width)
}

// The choices of a doom-loop question, in button order.
var doomReplies = []loop.DoomReply{loop.DoomContinue, loop.DoomStop, loop.DoomAlwaysAllow}

// doomShortcuts are the modified keys of the choices (indexes of
// doomReplies).
var doomShortcuts = map[string]int{"alt+c": 0, "alt+s": 1, "alt+a": 2}

// doomDialog asks whether to run a call repeated loop.DoomThreshold times.
type doomDialog struct {
	ask doomAsk
	row choiceRow // indexes doomReplies
}

func newDoomDialog(a doomAsk) *doomDialog {
	return &doomDialog{ask: a, row: choiceRow{n: len(doomReplies), shortcuts: doomShortcuts}}
}

func (d *doomDialog) abandoned() bool {
	select {
	case <-d.ask.done:
		return true
	default:
		return false
	}
}

func (d *doomDialog) approving() bool { return doomReplies[d.row.sel] != loop.DoomStop }

func (d *doomDialog) shortcut(key string) bool { return d.row.shortcut(key) }

func (d *doomDialog) answer(r loop.DoomReply) (drawerResult, tea.Cmd) {
	d.ask.reply <- r
	return drawerClose, nil
}

func (d *doomDialog) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		return d.answer(doomReplies[c])
	}
	if s == "esc" {
		return drawerPass, nil
	}
	return drawerKeep, nil
}

func (d *doomDialog) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	body := []string{th.WarnText.Render(fmt.Sprintf("%s was called %d times in a row with the same input:", termsafe.Strip(d.ask.tool), loop.DoomThreshold))}
	in := wrapText(termsafe.Strip(d.ask.input), inner-2)
	if len(in) > 4 {
		in = append(in[:4], "…")
	}
	for _, l := range in {
		body = append(body, "  "+th.Dim.Render(l))
	}
	body = append(body, "")
	body = append(body, d.row.view(th, []string{"continue · alt+c", "stop the turn · alt+s", "always allow this call · alt+a"}, m.questions.focused, inner)...)
	footer := m.questions.footer("typing goes to the editor · tab answers here · alt+c/s/a",
		"←→ choose · enter confirms · esc back to the editor")
	return m.questions.frame(m.th, "Doom loop?", clampBody(body, height, len(body)-1), footer, width)
}
