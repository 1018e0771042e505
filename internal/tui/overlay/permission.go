package overlay

// The permission question: may this tool call run (with the diff of an
// edit or a write before consent). It answers as every question does
// (questions.go); a denial asks for a one-line reason (sent to the model
// as the tool's result) and can stop the turn. A write to a file that
// runs as code (tools.Request.RunsCode) is never allowed for the session:
// that choice is not offered.

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/tui/diffview"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// The choices of a permission question, in button order.
const (
	choiceAllowOnce = iota
	choiceAllowSession
	choiceDeny
	choiceDenyStop
	choiceAllowAlways // a domain (tools.Request.Domain), from now on
)

// permissionShortcuts are the modified keys of the choices.
var permissionShortcuts = map[int]string{
	choiceAllowOnce: "alt+a", choiceAllowSession: "alt+s", choiceDeny: "alt+d", choiceDenyStop: "alt+x",
	choiceAllowAlways: "alt+w",
}

// permissionChoicesFor are the choices a request offers, in button order:
// a write to a file that runs as code (tools.Request.RunsCode) is never
// allowed for the session, so it has no such choice.
func permissionChoicesFor(req tools.Request) []int {
	if req.RunsCode || req.OutsideSandbox {
		return []int{choiceAllowOnce, choiceDeny, choiceDenyStop}
	}
	if req.Domain != "" {
		return []int{choiceAllowOnce, choiceAllowSession, choiceAllowAlways, choiceDeny, choiceDenyStop}
	}
	return []int{choiceAllowOnce, choiceAllowSession, choiceDeny, choiceDenyStop}
}

// PermissionAsk is a permission question of the loop: the request, where
// the answer goes, and the turn's end (the question is abandoned then).
type PermissionAsk struct {
	Req   tools.Request
	Reply chan<- tools.Answer
	Done  <-chan struct{}
}

// PermissionDialog asks whether a tool call may run.
type PermissionDialog struct {
	ask PermissionAsk
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
	diffTheme *theme.Theme
}

// NewPermissionDialog asks a, "allow once" highlighted.
func NewPermissionDialog(a PermissionAsk) *PermissionDialog {
	choices := permissionChoicesFor(a.Req)
	keys := make(map[string]int, len(choices))
	for i, c := range choices {
		keys[permissionShortcuts[c]] = i
	}
	return &PermissionDialog{ask: a, diff: diffview.Parse(a.Req.Diff), choices: choices,
		row: choiceRow{n: len(choices), shortcuts: keys}}
}

// chosen is the highlighted choice.
func (d *PermissionDialog) chosen() int { return d.choices[d.row.sel] }

func (d *PermissionDialog) Abandoned() bool {
	select {
	case <-d.ask.Done:
		return true
	default:
		return false
	}
}

func (d *PermissionDialog) Approving() bool {
	return d.reason == nil && (d.chosen() == choiceAllowOnce || d.chosen() == choiceAllowSession || d.chosen() == choiceAllowAlways)
}

func (d *PermissionDialog) Shortcut(key string) bool { return d.row.shortcut(key) }

func (d *PermissionDialog) answer(a tools.Answer) (Result, tea.Cmd) {
	d.ask.Reply <- a
	return Close, nil
}

// choose acts on the choice at index i of the row: allowing answers;
// denying opens the reason.
func (d *PermissionDialog) choose(h Host, qs *Questions, i int) (Result, tea.Cmd) {
	c := d.choices[i]
	switch c {
	case choiceAllowOnce:
		return d.answer(tools.Answer{Reply: tools.AllowOnce})
	case choiceAllowSession:
		return d.answer(tools.Answer{Reply: tools.AllowSession})
	case choiceAllowAlways:
		return d.answer(tools.Answer{Reply: tools.AllowAlways})
	}
	ti := textinput.New()
	ti.Prompt = "reason › "
	ti.Placeholder = "optional: what the model should do instead"
	ti.CharLimit = 500
	ti.SetWidth(max(10, h.Width()-16))
	cmd := ti.Focus()
	d.reason, d.stop, d.row.sel = &ti, c == choiceDenyStop, i
	qs.focused = true
	return Keep, cmd
}

func (d *PermissionDialog) Update(h Host, qs *Questions, msg tea.Msg) (Result, tea.Cmd) {
	if d.reason != nil {
		if k, ok := msg.(tea.KeyPressMsg); ok {
			switch k.String() {
			case "enter":
				return d.answer(tools.Answer{Reply: tools.Deny, Reason: strings.TrimSpace(d.reason.Value()), StopTurn: d.stop})
			case "esc":
				d.reason = nil
				return Keep, nil
			}
		}
		ti, cmd := d.reason.Update(msg)
		d.reason = &ti
		return Keep, cmd
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		return d.choose(h, qs, c)
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
		return Pass, nil
	}
	return Keep, nil
}

// diffLines renders the diff for width, cached.
func (d *PermissionDialog) diffLines(th *theme.Theme, width int) []string {
	if d.diffRows == nil || d.diffWidth != width || d.diffTheme != th {
		d.diffRows = diffview.RenderLines(d.diff, width, diffview.Auto, th.Diff)
		d.diffWidth, d.diffTheme = width, th
	}
	return d.diffRows
}

func (d *PermissionDialog) View(h Host, qs *Questions, width, height int) []string {
	th := h.Theme()
	req := d.ask.Req
	inner := max(10, width-4)
	var head []string
	if req.Command != "" {
		head = append(head, "Allow "+th.Bold.Render(req.Tool)+" to run:")
		for _, l := range theme.Wrap(termsafe.Strip(req.Command), inner-2) {
			head = append(head, "  "+th.AccentText.Render(l))
		}
		// Every simple command, wherever the line hides it (a loop body,
		// a case arm, a substitution).
		if len(req.Commands) > 1 || len(req.Commands) == 1 && req.Commands[0] != strings.TrimSpace(req.Command) {
			head = append(head, th.Dim.Render("which runs:"))
			for _, c := range req.Commands {
				head = append(head, "  • "+theme.OneLine(termsafe.Strip(c), inner-4))
			}
		}
	} else {
		title := termsafe.Strip(req.Title)
		if title == "" {
			title = req.Tool
		}
		head = append(head, "Allow "+th.Bold.Render(theme.OneLine(title, inner-8))+"?")
	}
	if req.Reason != "" {
		for _, l := range theme.Wrap("("+termsafe.Strip(req.Reason)+")", inner) {
			head = append(head, th.Dim.Render(l))
		}
	}
	if req.From != "" {
		head = append(head, th.Dim.Render(theme.OneLine("asked by "+termsafe.Strip(req.From), inner)))
	}
	session := "allow for this session"
	switch {
	case req.Tool == "bash" && len(req.Prefixes) > 0:
		session = "allow " + strings.Join(req.Prefixes, ", ") + " for this session"
	case req.Tool == "bash":
		session = "allow this command for this session"
	case req.Domain != "":
		session = "allow " + termsafe.Strip(req.Domain) + " for this session"
	case req.Outside:
		session = "allow " + req.Tool + " outside the directory for this session"
	default:
		session = "allow " + req.Tool + " for this session"
	}
	if req.RunsCode {
		head = append(head, th.Dim.Render(theme.OneLine("a file that runs as code is never allowed for the session", inner)))
	}
	once := "allow once"
	if req.OutsideSandbox {
		once = "run outside the sandbox once"
	}
	label := map[int]string{choiceAllowOnce: once, choiceAllowSession: session, choiceDeny: "deny…", choiceDenyStop: "deny and stop the turn",
		choiceAllowAlways: "always allow " + termsafe.Strip(req.Domain)}
	labels := make([]string, len(d.choices))
	for i, c := range d.choices {
		labels[i] = label[c] + " · " + permissionShortcuts[c]
	}
	tail := append([]string{""}, d.row.view(th, labels, qs.focused, inner)...)
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
	footer := qs.footer("typing goes to the editor · tab answers here · alt+a allow · alt+d deny",
		"←→ choose · enter confirms · ↑↓ scroll · esc back to the editor")
	if d.reason != nil {
		footer = "enter denies · esc back"
	}
	return qs.frame(th, "Permission", theme.ClampBody(body, height, len(body)-1), footer, width)
}
