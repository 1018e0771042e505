package tui

// Drawers open between the conversation and the editor: the /context
// overlay, help, the session and model pickers, the queue panel, and the
// loop's questions (permission, doom loop: dialogs.go). Each is a small
// model; the root model gives it keys while it is open.

import (
	"context"
	"fmt"
	"github.com/ctxloop/agent/internal/config"
	"slices"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// drawerResult tells the root model what to do after a drawer's update.
type drawerResult int

const (
	drawerKeep  drawerResult = iota // the drawer handled it
	drawerClose                     // close the drawer
	drawerPass                      // not for the drawer: close it and let the editor have the key
)

type drawer interface {
	update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd)
	// view renders at most height lines of width cells.
	view(m *Model, width, height int) []string
}

// frameLines draws a titled box around lines.
func frameLines(th *theme, title string, body []string, footer string, width int) []string {
	return frameWith(th.rule, title, body, footer, width)
}

// frameWith draws the box of frameLines in style.
func frameWith(style lipgloss.Style, title string, body []string, footer string, width int) []string {
	inner := max(1, width-4)
	top := "╭─ " + title + " "
	top += strings.Repeat("─", max(0, width-ansi.StringWidth(top)-1)) + "╮"
	out := []string{style.Render(fit(top, width))}
	side := style.Render("│")
	for _, l := range body {
		out = append(out, side+" "+pad(l, inner)+" "+side)
	}
	bottom := "╰"
	if footer != "" {
		bottom += "─ " + footer + " "
	}
	bottom += strings.Repeat("─", max(0, width-ansi.StringWidth(bottom)-1)) + "╯"
	out = append(out, style.Render(fit(bottom, width)))
	return out
}

// clampBody keeps at most height-2 body lines (the frame takes two),
// around the selected line sel.
func clampBody(body []string, height, sel int) []string {
	n := height - 2
	if n < 1 {
		n = 1
	}
	if len(body) <= n {
		return body
	}
	start := 0
	if sel >= n {
		start = sel - n + 1
	}
	return body[start : start+n]
}

// infoKeys is how the informational drawers treat keys: esc, enter and q
// close them, scrolling keys are the conversation's, and typing goes to
// the editor.
func infoKeys(msg tea.Msg) drawerResult {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep
	}
	switch k.String() {
	case "esc", "enter", "q":
		return drawerClose
	}
	return drawerPass
}

// contextDrawer is the /context overlay: the calculator's snapshot, and
// near the compaction point what the compaction will do (preview, filled
// in by contextPreviewCmd), and what a restore would need (restore,
// filled in by restoreCostCmd).
type contextDrawer struct {
	preview []string
	restore *loop.RestoreCost
}

func (d *contextDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return infoKeys(msg), nil
}

func (d *contextDrawer) view(m *Model, width, height int) []string {
	th := m.th
	s := m.snap
	inner := max(10, width-4)
	if m.runner == nil {
		text := "no session is open"
		if m.fresh || m.opening {
			text = "Nothing sent yet: the session starts with your first message."
		}
		return frameLines(th, "Context", []string{th.dim.Render(text)}, "esc close", width)
	}
	approx := ""
	if s.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	pct := func(n int64) string {
		if s.Window == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(s.Window))
	}
	var body []string
	body = append(body, th.bold.Render(fmt.Sprintf("Total %s%s of %s tokens (%s)", approx, commas(s.Total), commas(s.Window), pct(s.Total)))+
		th.dim.Render(" · basis "+string(s.Basis)))
	body = append(body, contextBar(th, s, inner)...)
	row := func(style func(...string) string, label string, n int64, how ...string) string {
		r := style("■") + " " + fmt.Sprintf("%-15s %11s  %6s", label, commas(n), pct(n))
		if len(how) > 0 && how[0] != "" {
			r += "  " + th.dim.Render(how[0])
		}
		return r
	}
	body = append(body,
		row(th.barSystem.Render, "system prompt", s.Breakdown.System, s.Labels.System),
		row(th.barTools.Render, "tool schemas", s.Breakdown.Tools, s.Labels.Tools),
	)
	body = append(body, m.mcpContextLines(pct)...)
	reasoningHow := "not sent back to this model"
	if s.Labels.Reasoning == tokens.LabelEstimated {
		reasoningHow = tokens.LabelEstimated
	}
	body = append(body,
		row(th.barMessages.Render, "messages", s.Breakdown.Messages, s.Labels.Messages),
		"  "+fmt.Sprintf("%-15s %11s  %6s", "of it reasoning", commas(s.Breakdown.Reasoning), pct(s.Breakdown.Reasoning))+"  "+th.dim.Render(reasoningHow),
	)
	if s.Breakdown.Pins > 0 {
		body = append(body, row(th.barMessages.Render, "pins", s.Breakdown.Pins, s.Labels.Pins))
	}
	body = append(body,
		row(th.barFree.Render, "free", s.Free),
		row(th.barReserve.Render, "output reserve", s.OutputReserve),
	)
	if s.CompactAt > 0 {
		left := s.CompactAt - s.Total
		line := fmt.Sprintf("Compaction at %s tokens (%s)", commas(s.CompactAt), pct(s.CompactAt))
		if left > 0 {
			line += fmt.Sprintf(", %s to go", commas(left))
		} else {
			line += ": due before the next call"
		}
		body = append(body, line)
		if len(d.preview) > 0 {
			body = append(body, th.warnText.Render("Near the point — what the compaction will do (/compact --preview):"))
			for _, l := range d.preview {
				body = append(body, "  "+l)
			}
		}
	} else {
		body = append(body, "Automatic compaction is off (/compact runs it; a request the provider refuses for size still compacts, as an emergency)")
	}
	if d.restore != nil {
		body = append(body, restoreLines(*d.restore)...)
	}
	if s.Basis == tokens.BasisActual {
		body = append(body, fmt.Sprintf("Computed: last input %s + last output %s + new since %s", commas(s.LastInput), commas(s.LastOutput), commas(s.NewEstimate)))
	} else {
		body = append(body, fmt.Sprintf("Computed: system %s + tools %s + estimate of the history %s", commas(s.Breakdown.System), commas(s.Breakdown.Tools), commas(s.NewEstimate)))
	}
	if s.EstimateError != nil {
		body = append(body, fmt.Sprintf("Last estimate error: %+.1f%%", 100**s.EstimateError))
	} else {
		body = append(body, th.dim.Render("Last estimate error: none yet (no call with usage)"))
	}
	if message.CacheFiguresOf(m.lastUsage, m.sess.Usage) != nil {
		body = append(body, fmt.Sprintf("Prompt cache: last step %d%% of its input read from the cache, session %d%%",
			m.lastUsage.CachedPercent(), m.sess.Usage.CachedPercent()))
	} else {
		body = append(body, th.dim.Render("Prompt cache: nothing read or written yet"))
	}
	for _, w := range s.Warnings {
		body = append(body, th.warnText.Render("! "+w))
	}
	var wrapped []string
	for _, l := range body {
		if ansi.StringWidth(l) > inner {
			wrapped = append(wrapped, strings.Split(ansi.Wrap(l, inner, " "), "\n")...)
			continue
		}
		wrapped = append(wrapped, l)
	}
	return frameLines(th, "Context", clampBody(wrapped, height, 0), "esc close", width)
}

// contextBar draws the window as a bar of system, tools, messages, free
// and reserve, with the compaction point marked under it.
func contextBar(th *theme, s tokens.Snapshot, width int) []string {
	total := max(s.Window, s.Breakdown.System+s.Breakdown.Tools+s.Breakdown.Messages+s.Breakdown.Pins+s.Free+s.OutputReserve)
	if total <= 0 || width < 10 {
		return nil
	}
	segs := []struct {
		n     int64
		ch    string
		style func(...string) string
	}{
		{s.Breakdown.System, "█", th.barSystem.Render},
		{s.Breakdown.Tools, "█", th.barTools.Render},
		{s.Breakdown.Messages, "█", th.barMessages.Render},
		{s.Breakdown.Pins, "▓", th.barMessages.Render},
		{s.Free, "░", th.barFree.Render},
		{s.OutputReserve, "▒", th.barReserve.Render},
	}
	var b strings.Builder
	used := 0
	var acc int64
	for i, sg := range segs {
		acc += sg.n
		end := int(float64(acc) / float64(total) * float64(width))
		if i == len(segs)-1 {
			end = width
		}
		if sg.n > 0 && end == used && used < width {
			end = used + 1 // every non-empty part gets a cell
		}
		if end > used {
			b.WriteString(sg.style(strings.Repeat(sg.ch, end-used)))
			used = end
		}
	}
	out := []string{b.String()}
	if s.CompactAt > 0 && s.CompactAt < total {
		col := int(float64(s.CompactAt) / float64(total) * float64(width))
		col = min(max(col, 0), width-1)
		label := "▲ compaction"
		if col+len([]rune(label)) > width {
			label = "compaction ▲"
			col = max(0, col-len([]rune(label))+1)
		}
		out = append(out, strings.Repeat(" ", col)+th.warnText.Render(label))
	}
	return out
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// helpDrawer lists keys and commands; it scrolls (help.go).
type helpDrawer struct{ scroller }

func (d *helpDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return infoKeys(msg), nil
}

func (d *helpDrawer) view(m *Model, width, height int) []string {
	th := m.th
	keys := [][2]string{
		{"enter", "send (queued while the agent works)"},
		{"shift+enter ctrl+j", "new line"},
		{"↑ ↓", "history; ↑ on an empty editor pulls the last queued message back"},
		{"esc", "interrupt the agent; close a panel"},
		{"ctrl+c", "clear the editor; twice to quit"},
		{"pgup pgdn wheel", "scroll the conversation"},
		{"ctrl+o", "expand or collapse the focused card (marked ▎; or click one)"},
		{"alt+↑ alt+↓", "move the focus to the previous or next card or message"},
		{"alt+o", "expand or collapse every card (/expand all)"},
		{"alt+y", "copy the focused message, else the newest reply, via OSC 52 (/copy code: its code block)"},
		{"ctrl+f", "search the conversation (/find)"},
		{"tab", "while a permission question is open: answer it (alt+a/s/d/x answer at once)"},
		{"tab", "while the agent works: queue the message for after the turn (enter steers the running turn)"},
		{"ctrl+q", "queued messages: edit, delete, reorder, flip steer ⇄ queue"},
		{"ctrl+v", "attach the clipboard's image (pasting an image file's path attaches it too; backspace on an empty editor removes one)"},
		{"shift+drag", "select text (the mouse scrolls the conversation)"},
	}
	if m.inline {
		keys = slices.DeleteFunc(keys, func(k [2]string) bool {
			return k[0] == "pgup pgdn wheel" || k[0] == "shift+drag" || k[0] == "ctrl+f"
		})
		keys = append(keys,
			[2]string{"inline mode", "finished messages are in the terminal's scrollback: scroll, search and select there"},
			[2]string{"", "ctrl+o on a printed card prints it again, expanded"})
	}
	var body []string
	for _, k := range keys {
		body = append(body, th.key.Render(fmt.Sprintf("%-18s", k[0]))+" "+k[1])
	}
	body = append(body, "")
	for _, c := range commands {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		body = append(body, th.key.Render(fmt.Sprintf("%-18s", name))+" "+c.help)
	}
	body = append(body, m.customHelpLines()...) // custom.go
	body, footer := d.window(body, height, "esc close")
	return frameLines(th, "Help", body, footer, width)
}

// pickerEntry is one choice of a picker.
type pickerEntry struct {
	value, label, detail string
	current              bool
	// snippet, under the entry, is where a session search matched.
	snippet string
}

// picker is a filterable list: /sessions and /model.
type picker struct {
	title   string
	entries []pickerEntry
	filter  string
	sel     int
	loading bool
	err     error
	// free accepts the typed filter as a value when nothing matches.
	free bool
	// note is shown above the entries (the server's models could not be
	// listed); firstRun marks the picker of a session without a model.
	note     string
	firstRun bool
	choose   func(m *Model, value string) tea.Cmd
	// search, for /sessions, searches the sessions' history for the
	// filter (sessionsearch.go).
	search *sessionSearch
}

type sessionsLoadedMsg struct {
	list []message.Session
	err  error
}

type modelsLoadedMsg struct {
	names  []string
	served map[string]bool // the names the server lists
	note   string
}

func newSessionPicker() *picker {
	return &picker{title: "Sessions", loading: true, search: &sessionSearch{}, choose: func(m *Model, id string) tea.Cmd {
		if id == m.sess.ID {
			return nil
		}
		if cmd := m.refuseSwitch(); cmd != nil {
			return cmd
		}
		m.resetConversation()
		return m.openSession(id)
	}}
}

func newModelPicker(m *Model) *picker {
	return &picker{title: "Model", loading: true, free: true, choose: func(m *Model, name string) tea.Cmd {
		if name == m.currentModel() {
			return nil
		}
		return m.setModelCmd(name)
	}}
}

// load fills the picker in the background.
func (p *picker) load(m *Model) tea.Cmd {
	st := m.opt.Loop.Store
	dir := m.opt.Loop.Dir
	if p.title == "Sessions" {
		return func() tea.Msg {
			if st == nil {
				return sessionsLoadedMsg{}
			}
			list, err := st.ListSessions(context.Background(), dir)
			return sessionsLoadedMsg{list: list, err: err}
		}
	}
	cfg := m.opt.Loop.Config
	current := m.currentModel()
	if m.needsModel() {
		current = "" // the default is not a choice the user made
	}
	prov := m.opt.Loop.Provider
	return func() tea.Msg {
		seen := map[string]bool{}
		var names []string
		add := func(n string) {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		served, err := listServed(prov)
		msg := modelsLoadedMsg{served: map[string]bool{}}
		if err != nil {
			msg.note = fmt.Sprintf("the server's models could not be listed (%v): showing the catalog", err)
		}
		for _, n := range served {
			msg.served[n] = true
			add(n)
		}
		add(current)
		if cfg != nil {
			add(cfg.Model)
			var configured []string
			for n := range cfg.Models {
				configured = append(configured, n)
			}
			sort.Strings(configured)
			for _, n := range configured {
				add(n)
			}
			add(cfg.SmallModel)
		}
		if st != nil {
			if list, err := st.ListSessions(context.Background(), ""); err == nil {
				for _, s := range list {
					add(s.Model)
				}
			}
		}
		for _, n := range config.CatalogModels() {
			add(n)
		}
		msg.names = names
		return msg
	}
}

func (p *picker) visible() []pickerEntry {
	if p.filter == "" {
		return p.entries
	}
	f := strings.ToLower(p.filter)
	var out []pickerEntry
	for _, e := range p.entries {
		if strings.Contains(strings.ToLower(e.label+" "+e.value), f) {
			out = append(out, e)
		}
	}
	if p.searching() {
		return p.searchVisible(out)
	}
	return out
}

func (p *picker) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	switch msg := msg.(type) {
	case sessionsLoadedMsg:
		p.loading, p.err = false, msg.err
		p.entries = nil
		for _, s := range msg.list {
			p.entries = append(p.entries, sessionEntry(m.opt.Loop.Config, s, m.sess.ID))
		}
		return drawerKeep, nil
	case sessionSearchDueMsg, sessionSearchMsg:
		return drawerKeep, p.searchUpdate(m, msg)
	case modelsLoadedMsg:
		p.loading = false
		p.entries = nil
		p.note = msg.note
		if p.firstRun {
			var served []string
			for _, n := range msg.names {
				if msg.served[n] {
					served = append(served, n)
				}
			}
			if cmd, ok := m.chooseSole(served); ok {
				return drawerClose, cmd
			}
		}
		for _, n := range msg.names {
			detail := ""
			if cfg := m.opt.Loop.Config; cfg != nil {
				if info, known := cfg.ModelInfo(n); known {
					detail = fmt.Sprintf("%s window", formatTokens(info.ContextWindow))
				} else {
					detail = "unknown limits"
				}
			}
			if msg.served[n] {
				detail = "served · " + detail
			}
			p.entries = append(p.entries, pickerEntry{value: n, label: termsafe.Strip(n), detail: detail, current: n == m.currentModel()})
		}
		return drawerKeep, nil
	case tea.PasteMsg:
		p.filter += strings.ReplaceAll(msg.Content, "\n", " ")
		p.sel = 0
		return drawerKeep, p.filterChanged()
	case tea.KeyPressMsg:
		vis := p.visible()
		switch msg.String() {
		case "esc":
			return drawerClose, nil
		case "up", "ctrl+p":
			p.sel = max(0, p.sel-1)
		case "down", "ctrl+n":
			p.sel = min(max(0, len(vis)-1), p.sel+1)
		case "enter":
			if len(vis) > 0 {
				return drawerClose, p.choose(m, vis[min(p.sel, len(vis)-1)].value)
			}
			if p.free && strings.TrimSpace(p.filter) != "" {
				return drawerClose, p.choose(m, strings.TrimSpace(p.filter))
			}
		case "backspace":
			if p.filter != "" {
				r := []rune(p.filter)
				p.filter = string(r[:len(r)-1])
				p.sel = 0
				return drawerKeep, p.filterChanged()
			}
		default:
			if msg.Text != "" {
				p.filter += msg.Text
				p.sel = 0
				return drawerKeep, p.filterChanged()
			}
		}
	}
	return drawerKeep, nil
}

func (p *picker) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	body := []string{th.accentText.Render("filter › ") + p.filter}
	if p.note != "" {
		body = append(body, th.dim.Render(fit(p.note, inner)))
	}
	vis := p.visible()
	switch {
	case p.loading:
		body = append(body, th.dim.Render("loading…"))
	case p.err != nil:
		body = append(body, th.errorText.Render(p.err.Error()))
	case p.search != nil && p.search.err != nil && p.filter != "":
		body = append(body, th.errorText.Render("search: "+p.search.err.Error()))
	case len(vis) == 0 && p.search != nil && p.filter != "" && p.search.query != p.filter:
		body = append(body, th.dim.Render("searching…"))
	case len(vis) == 0 && p.search != nil && p.filter != "":
		body = append(body, th.dim.Render("no session mentions "+p.filter))
	case len(vis) == 0 && p.free && p.filter != "":
		body = append(body, th.dim.Render("enter switches to "+p.filter))
	case len(vis) == 0:
		body = append(body, th.dim.Render("nothing here yet"))
	}
	var rows []string
	selRow := 0
	for i, e := range vis {
		mark := "  "
		if e.current {
			mark = "• "
		}
		label := mark + e.label
		detail := e.detail
		room := inner - ansi.StringWidth(detail) - 2
		if room < 12 {
			detail, room = "", inner
		}
		line := pad(fit(label, room), room)
		if detail != "" {
			line += "  " + th.dim.Render(detail)
		}
		if i == p.sel {
			line = th.selected.Render(pad(ansi.Strip(line), inner))
			selRow = len(rows)
		}
		rows = append(rows, line)
		if e.snippet != "" {
			rows = append(rows, th.dim.Render(fit("    "+e.snippet, inner)))
			if i == p.sel {
				selRow++
			}
		}
	}
	rows = clampBody(rows, height-len(body), selRow)
	body = append(body, rows...)
	footer := "↑↓ choose · enter open · esc close"
	if p.free {
		footer = "↑↓ choose · enter switch · type a name · esc"
	}
	return frameLines(th, p.title, body, footer, width)
}

// queueDrawer lists queued messages to edit, delete or reorder.
type queueDrawer struct{ list listEditor }

func newQueueDrawer() *queueDrawer { return &queueDrawer{list: listEditor{editHeight: 4}} }

func (q *queueDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	r := m.runner
	if q.list.editing != nil {
		saved, cmd := q.list.updateEditing(msg)
		if saved == nil || r == nil {
			return drawerKeep, cmd
		}
		return drawerKeep, func() tea.Msg {
			if err := r.UpdateQueued(context.Background(), saved.id, saved.text); err != nil {
				return opFailedMsg{what: "edit the queued message (it may have been sent already)", err: err}
			}
			return nil
		}
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	if len(m.queue) == 0 {
		if k.String() == "esc" || k.String() == "ctrl+q" {
			return drawerClose, nil
		}
		return drawerPass, nil
	}
	q.list.clamp(len(m.queue))
	cur := m.queue[q.list.sel]
	op := func(what string, fn func(ctx context.Context) error) tea.Cmd {
		if r == nil {
			return nil
		}
		return func() tea.Msg {
			if err := fn(context.Background()); err != nil {
				return opFailedMsg{what: what, err: err}
			}
			return nil
		}
	}
	if q.list.move(k.String(), len(m.queue)) {
		return drawerKeep, nil
	}
	switch k.String() {
	case "esc", "ctrl+q":
		return drawerClose, nil
	case "enter", "e":
		q.list.edit(m.th, m.width, cur.ID, cur.Text)
	case "d", "delete", "backspace", "x":
		return drawerKeep, op("delete the queued message", func(ctx context.Context) error { return r.RemoveQueued(ctx, cur.ID) })
	case "tab", "s":
		kind := flipped(cur)
		return drawerKeep, op("flip the queued message (it may have been sent already)", func(ctx context.Context) error { return r.SetQueuedKind(ctx, cur.ID, kind) })
	case "alt+up", "shift+up", "K":
		if q.list.sel > 0 {
			q.list.sel--
			to := q.list.sel
			return drawerKeep, op("move the queued message", func(ctx context.Context) error { return r.MoveQueued(ctx, cur.ID, to) })
		}
	case "alt+down", "shift+down", "J":
		if q.list.sel < len(m.queue)-1 {
			q.list.sel++
			to := q.list.sel
			return drawerKeep, op("move the queued message", func(ctx context.Context) error { return r.MoveQueued(ctx, cur.ID, to) })
		}
	}
	return drawerKeep, nil
}

func (q *queueDrawer) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	var body []string
	if len(m.queue) == 0 {
		body = append(body, th.dim.Render("nothing queued: messages sent while the agent works wait here"))
	}
	rows := make([]string, len(m.queue))
	for i, e := range m.queue {
		rows[i] = fmt.Sprintf("%d. %s %s", i+1, kindMark(e), oneLine(termsafe.Strip(e.Text), inner-10))
	}
	body = append(body, q.list.view(th, rows, inner)...)
	footer := "↑↓ select · enter edit · tab steer⇄queue · d delete · shift+↑↓ move · esc"
	if q.list.editing != nil {
		footer = "enter save · esc cancel"
	}
	return frameLines(th, fmt.Sprintf("Queue (%d) · steer: at the next step · queue: after the turn", len(m.queue)), clampBody(body, height, q.list.sel), footer, width)
}

// sinceLabel is a short elapsed time for the status line.
func sinceLabel(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Since(t)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return formatDuration(d)
}
