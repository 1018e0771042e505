package tui

// Plan mode in the chat (internal/plan enforces it; the loop stores the
// plan). Shift+Tab and /plan switch the session's mode (the loop's
// plan.Mode, shared with the open session and the next ones) and the
// status line says "plan mode" while it is on. When a plan-mode turn ends
// with a plan, the plan panel opens over the editor: enter approves and
// runs it (plan mode off, the plan sent as the next message), e edits it
// ($EDITOR when set, else in the panel), esc keeps planning. /plan show
// opens the panel on the session's latest plan, /plan edit edits it, /plan
// run approves it. The panel reads the plan from the store (a read); an
// edit is written by loop.SavePlanEdit in a command, never in Update.

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/plan"
)

// planLabel is the status line's " · plan mode" after the model, "" in
// the default mode.
func planLabel(mode *plan.Mode) string {
	if mode.On() {
		return " · plan mode"
	}
	return ""
}

// togglePlanMode switches the mode (Shift+Tab, /plan) and says so.
func togglePlanMode(m *Model) tea.Cmd {
	if m.opt.Loop.Mode == nil {
		return m.setFlash("this chat cannot switch modes", 2*time.Second)
	}
	if m.opt.Loop.Mode.Toggle() == plan.Plan {
		m.chat.notice(noticeInfo, "plan mode: read-only tools only, from the next message", "shift+tab or /plan leaves it; the plan opens in a panel to approve, edit or keep planning.")
	} else {
		m.chat.notice(noticeInfo, "plan mode off: every tool is offered again, from the next message", "")
	}
	return nil
}

// planCommand runs /plan [show|edit|run].
func planCommand(m *Model, arg string) tea.Cmd {
	switch strings.TrimSpace(arg) {
	case "":
		return togglePlanMode(m)
	case "show":
		return loadPlan(m, planShow)
	case "edit":
		return loadPlan(m, planEdit)
	case "run", "approve":
		return loadPlan(m, planRun)
	}
	return m.setFlash("usage: /plan, /plan show, /plan edit or /plan run", 3*time.Second)
}

// What to do with a plan once it is loaded.
const (
	planShow = iota
	planEdit
	planRun
)

// planLoadedMsg is the session's latest plan, read for then.
type planLoadedMsg struct {
	part message.Part
	ok   bool
	err  error
	then int
}

// loadPlan reads the session's latest plan from the store.
func loadPlan(m *Model, then int) tea.Cmd {
	r := m.runner
	if r == nil {
		return m.setFlash("no plan yet: switch to plan mode (shift+tab) and ask for one", 3*time.Second)
	}
	id, store := r.Session().ID, m.store
	return func() tea.Msg {
		st, err := store.wait()
		if err != nil {
			return planLoadedMsg{err: err, then: then}
		}
		h, err := st.LoadHistory(context.Background(), id)
		if err != nil {
			return planLoadedMsg{err: err, then: then}
		}
		p, ok := loop.LatestPlan(h)
		return planLoadedMsg{part: p, ok: ok, then: then}
	}
}

func (msg planLoadedMsg) apply(m *Model) tea.Cmd {
	switch {
	case msg.err != nil:
		m.chat.notice(noticeError, "read the plan: "+msg.err.Error(), "")
		return nil
	case !msg.ok:
		return m.setFlash("this session has no plan yet: switch to plan mode (shift+tab) and ask for one", 3*time.Second)
	}
	switch msg.then {
	case planEdit:
		return editPlan(m, msg.part)
	case planRun:
		return approvePlan(m, msg.part.Text)
	}
	m.drawer = &planPanel{part: msg.part}
	return nil
}

// planArrived opens the panel on a plan the loop just stored (not one
// of a history being drawn: loaded), while plan mode is still on and no
// other drawer is open.
func planArrived(m *Model, p *message.Part, loaded bool) {
	if !loaded && p.Text != "" && m.opt.Loop.Mode.On() && m.drawer == nil {
		m.drawer = &planPanel{part: *p}
	}
}

// approvePlan leaves plan mode and sends the plan as the next message.
func approvePlan(m *Model, text string) tea.Cmd {
	if m.runner == nil {
		return m.setFlash("no session is open", 2*time.Second)
	}
	if m.opt.Loop.Mode != nil {
		m.opt.Loop.Mode.Set(false)
	}
	m.chat.notice(noticeInfo, "plan approved: plan mode off, running it", "")
	m.chat.toBottom()
	return m.sendKind(loop.ExecuteMessage(text), message.KindSteer)
}

// editPlan edits the plan in $EDITOR when set, else in the panel.
func editPlan(m *Model, p message.Part) tea.Cmd {
	if m.busy {
		return m.setFlash("the agent is busy: edit the plan once the turn ends", 3*time.Second)
	}
	store := m.store
	save := func(text string) tea.Msg {
		st, err := store.wait()
		if err != nil {
			return planSavedMsg{err: err}
		}
		if strings.TrimSpace(text) == strings.TrimSpace(p.Text) {
			return planSavedMsg{part: p, unchanged: true}
		}
		saved, err := loop.SavePlanEdit(context.Background(), st, p, text)
		return planSavedMsg{part: saved, err: err}
	}
	if editor := userEditor(); editor != "" {
		return editPlanExternal(editor, p.Text, save)
	}
	ed := textEditor(m.th, p.Text, max(10, m.width-6), max(6, m.height/2)) // chathost.go
	m.drawer = &planEditDrawer{ed: ed, save: save}
	return nil
}

// editPlanExternal edits text in the user's editor and saves the result.
func editPlanExternal(editor, text string, save func(string) tea.Msg) tea.Cmd {
	return editExternal(editor, "plan.md", text, func(saved string, err error) tea.Msg { // externaledit.go
		if err != nil {
			return planSavedMsg{err: err}
		}
		return save(saved)
	})
}

// planSavedMsg is the result of an edit of the plan.
type planSavedMsg struct {
	part      message.Part
	unchanged bool
	err       error
}

func (msg planSavedMsg) apply(m *Model) tea.Cmd {
	switch {
	case msg.err != nil:
		m.chat.notice(noticeError, "edit the plan: "+msg.err.Error(), "The plan is kept as it was.")
		return nil
	case msg.unchanged:
		m.chat.notice(noticeInfo, "plan unchanged", "")
	default:
		m.chat.notice(noticeInfo, "plan saved", "")
	}
	m.drawer = &planPanel{part: msg.part}
	return nil
}

// planPanel shows a plan: enter approves and runs it, e edits it, esc
// closes the panel (plan mode stays on).
type planPanel struct{ part message.Part }

func (d *planPanel) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	switch k.String() {
	case "enter":
		return drawerClose, approvePlan(m, d.part.Text)
	case "e":
		return drawerClose, editPlan(m, d.part)
	case "esc", "q":
		return drawerClose, nil
	}
	return drawerKeep, nil
}

func (d *planPanel) view(m *Model, width, height int) []string {
	body := wrapText(d.part.Text, max(10, width-4))
	return frameLines(m.th, "Plan", clampBody(body, max(1, height-2), 0),
		"enter approve and run · e edit · esc keep planning", width)
}

// planEditDrawer edits the plan in the chat's editor: ctrl+s saves, esc
// cancels.
type planEditDrawer struct {
	ed   *editor
	save func(string) tea.Msg
}

func (d *planEditDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			return drawerClose, nil
		case "ctrl+s":
			text := textArea{d.ed}.Text()
			if strings.TrimSpace(text) == "" {
				return drawerKeep, m.setFlash("the plan is empty: write it, or esc to keep the old one", 3*time.Second)
			}
			return drawerClose, func() tea.Msg { return d.save(text) }
		}
	}
	return drawerKeep, d.ed.update(msg)
}

func (d *planEditDrawer) view(m *Model, width, height int) []string {
	d.ed.setWidth(max(10, width-6))
	return frameLines(m.th, "Plan · your text is what runs when you approve it",
		strings.Split(d.ed.view(), "\n"), "ctrl+s save · esc cancel ($EDITOR, when set, is used instead)", width)
}
