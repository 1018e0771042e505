package tui

// Compaction the user controls (issue 16): /compact --preview shows what a
// compaction would do without calling any model; /context explains it
// near the compaction point; /pin and /pins keep facts that every request
// carries after the summary; /summary edit replaces the newest summary
// ($EDITOR through tea.ExecProcess when set, else a panel here);
// /summarise picks a user message, then summarises everything before it
// (keeping it and what follows verbatim) or everything after it (keeping
// it and what came before verbatim). Every runner call runs in a
// tea.Cmd; its result comes back as a controlMsg.

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// controlMsg is the result of a command of this file, applied to the model
// by Update.
type controlMsg interface {
	apply(m *Model) tea.Cmd
}

// previewArg recognises "/compact --preview [focus]".
func previewArg(arg string) (focus string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	if first != "--preview" && first != "-p" {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// previewMsg is a compaction preview, for the preview panel or /context.
type previewMsg struct {
	p         loop.CompactPreview
	err       error
	focus     string
	forDrawer bool // for /context's explanation rather than its own panel
}

func (msg previewMsg) apply(m *Model) tea.Cmd {
	if msg.forDrawer {
		if d, ok := m.drawer.(*contextDrawer); ok && msg.err == nil {
			d.preview = msg.p.Lines()
		}
		return nil
	}
	if msg.err != nil {
		return m.setFlash("preview: "+msg.err.Error(), 3*time.Second)
	}
	lines := msg.p.Lines()
	if msg.focus != "" {
		lines = append([]string{"Focus: " + msg.focus}, lines...)
	}
	m.drawer = hosted{&overlay.LinesDrawer{Title: "Compaction preview · no request sent", Lines: lines,
		Footer: "/compact runs it · esc close"}}
	return nil
}

// compactPreviewCmd computes the preview of /compact --preview.
func (m *Model) compactPreviewCmd(focus string) tea.Cmd {
	r := m.runner
	if r == nil {
		return m.setFlash("nothing to compact yet: no conversation", 2*time.Second)
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: preview once the turn ends", 3*time.Second)
	}
	return func() tea.Msg {
		p, err := r.Preview()
		return previewMsg{p: p, err: err, focus: focus}
	}
}

// contextPreviewCmd fills /context's explanation of the coming compaction
// when the total of s is past tokens.NearFraction of the point; the
// caller asks only while the runner r is idle (Preview would find it
// busy).
func contextPreviewCmd(r *loop.Runner, s tokens.Reading) tea.Cmd {
	if !nearPoint(s) {
		return nil
	}
	return func() tea.Msg {
		p, err := r.Preview()
		return previewMsg{p: p, err: err, forDrawer: true}
	}
}

// nearPoint reports whether s is past tokens.NearFraction of its
// compaction point.
func nearPoint(s tokens.Reading) bool {
	return s.CompactAt > 0 && float64(s.Total) >= tokens.NearFraction*float64(s.CompactAt)
}

// pinDoneMsg is the result of /pin and of an edit or removal in /pins
// (overlay.PinDoneMsg).
type pinDoneMsg overlay.PinDoneMsg

func (msg pinDoneMsg) apply(m *Model) tea.Cmd {
	if msg.Err != nil {
		m.chat.notice(noticeError, "pin: "+msg.Err.Error(), "")
		return nil
	}
	if m.runner != nil {
		m.snap = m.runner.Reading()
	}
	if msg.Verb == "pinned" {
		m.chat.notice(noticeInfo, "pinned: "+oneLine(termsafe.Strip(msg.Text), 70),
			"sent word for word after every summary; /pins edits them")
		return nil
	}
	return m.setFlash("pin "+msg.Verb, 2*time.Second)
}

// maxPinChars bounds a pin taken from a message or card.
const maxPinChars = 4000

// pinCmd pins text, or the focused message or card when text is empty.
func (m *Model) pinCmd(text string) tea.Cmd {
	r := m.runner
	if r == nil {
		return m.setFlash("no session yet: send a message first, then /pin", 3*time.Second)
	}
	if strings.TrimSpace(text) == "" {
		if it := m.chat.copySource(); it != nil {
			text = strings.TrimSpace(copyText(it))
		}
		if r := []rune(text); len(r) > maxPinChars {
			text = string(r[:maxPinChars]) + "…"
		}
	}
	if strings.TrimSpace(text) == "" {
		return m.setFlash("nothing to pin: /pin TEXT, or select a message with alt+↑ first", 3*time.Second)
	}
	return func() tea.Msg {
		_, err := r.AddPin(context.Background(), text, "")
		return pinDoneMsg{Verb: "pinned", Text: text, Err: err}
	}
}

// pinsDrawer puts overlay.PinsDrawer in the chat's drawer slot, given
// the session's pins as they stand and the runner's edits of them.
type pinsDrawer struct{ *overlay.PinsDrawer }

func newPinsDrawer() pinsDrawer { return pinsDrawer{overlay.NewPinsDrawer()} }

func (d pinsDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	if m.runner == nil {
		return d.Update(chatHost{m}, nil, nil, msg)
	}
	return d.Update(chatHost{m}, m.runner.Pins(), m.runner, msg)
}

func (d pinsDrawer) view(m *Model, width, height int) []string {
	var pins []message.Pin
	if m.runner != nil {
		pins = m.runner.Pins()
	}
	return d.View(chatHost{m}, pins, width, height)
}

// summaryCmd runs /summary edit.
func (m *Model) summaryCmd(arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "edit" {
		return m.setFlash("usage: /summary edit", 2*time.Second)
	}
	r := m.runner
	if r == nil {
		return m.setFlash("no summary yet: /compact first", 2*time.Second)
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: edit the summary once the turn ends", 3*time.Second)
	}
	text, _, err := r.Summary()
	if err != nil {
		return m.setFlash(err.Error(), 3*time.Second)
	}
	// Only the summary text is editable: the user's messages kept in it
	// verbatim and the pins stay (an editor shows them read-only below a
	// marker, the drawer says so in its title).
	if editor := userEditor(); editor != "" {
		return editInExternal(r, editor, loop.SummaryEditFile(text, r.Pins()))
	}
	ed := textEditor(m.th, loop.EditableSummary(text), max(10, m.width-6), max(6, m.height/2))
	ed.ta.MoveToBegin() // the drawer shows the top: the cursor starts there too
	m.drawer = &summaryEditDrawer{SummaryEditor: overlay.NewSummaryEditor(textArea{ed}), ed: ed}
	return nil
}

// summaryEditedMsg is the result of an edit of the summary.
type summaryEditedMsg struct {
	err       error
	unchanged bool
}

func (msg summaryEditedMsg) apply(m *Model) tea.Cmd {
	switch {
	case msg.err != nil:
		m.chat.notice(noticeError, "edit summary: "+msg.err.Error(), "")
	case msg.unchanged:
		return m.setFlash("summary unchanged", 2*time.Second)
	default:
		if m.runner != nil {
			m.snap = m.runner.Reading()
		}
		m.chat.notice(noticeInfo, "summary edited: the next requests carry your text", "the original stays in the database")
	}
	return nil
}

// editInExternal opens the summary's editor file (loop.SummaryEditFile)
// in editor on a temporary file (the TUI gives the terminal to it) and
// stores the summary text it saved.
func editInExternal(r *loop.Runner, editor, text string) tea.Cmd {
	return editExternal(editor, "summary.md", text, func(saved string, err error) tea.Msg { // externaledit.go
		if err != nil {
			return summaryEditedMsg{err: err}
		}
		return saveSummary(r, text, saved)
	})
}

// saveSummary stores the summary text of edited (an editor's file or the
// drawer's text) unless it is the same as the summary text of before.
func saveSummary(r *loop.Runner, before, edited string) tea.Msg {
	if loop.EditableSummary(loop.SummaryFromEditFile(edited)) == loop.EditableSummary(before) {
		return summaryEditedMsg{unchanged: true}
	}
	err := r.EditSummary(context.Background(), edited)
	if errors.Is(err, loop.ErrBusy) {
		err = errors.New("the agent started a turn: edit again once it ends")
	}
	return summaryEditedMsg{err: err}
}

// summaryEditDrawer puts overlay.SummaryEditor in the chat's drawer slot
// and writes the summary saved (saveSummary); ed is the editor it edits in.
type summaryEditDrawer struct {
	*overlay.SummaryEditor
	ed *editor
}

func (d *summaryEditDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	res, cmd := d.Update(chatHost{m}, msg)
	edited, ok := d.Saved()
	if !ok {
		return res, cmd
	}
	r := m.runner
	if r == nil {
		return drawerClose, nil
	}
	before, _, _ := r.Summary()
	return drawerClose, func() tea.Msg { return saveSummary(r, before, edited) }
}

func (d *summaryEditDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, width, height)
}

// summariseLoadedMsg carries the user messages /summarise offers.
type summariseLoadedMsg struct {
	entries []overlay.PickerEntry
	err     error
}

func (msg summariseLoadedMsg) apply(m *Model) tea.Cmd {
	if msg.err != nil {
		return m.setFlash("summarise: "+msg.err.Error(), 3*time.Second)
	}
	if len(msg.entries) == 0 {
		return m.setFlash("nothing to summarise yet: no message of yours since the last summary", 3*time.Second)
	}
	first := msg.entries[0].Value
	m.drawer = pickerOn("Summarise · pick a message, then what to summarise around it", msg.entries,
		func(m *Model, id string) tea.Cmd {
			return func() tea.Msg { return summariseChosenMsg{id: id, first: id == first} }
		})
	return nil
}

// summariseChosenMsg is the message picked in /summarise; first is set
// for the oldest one offered, before which nothing can be summarised.
type summariseChosenMsg struct {
	id    string
	first bool
}

// Summarise what came before or after the chosen message.
const (
	summariseBefore = "before"
	summariseAfter  = "after"
)

func (msg summariseChosenMsg) apply(m *Model) tea.Cmd {
	var entries []overlay.PickerEntry
	if !msg.first {
		entries = append(entries, overlay.PickerEntry{Value: summariseBefore, Label: "Summarise what came before it",
			Detail: "it and all after it stay verbatim"})
	}
	entries = append(entries, overlay.PickerEntry{Value: summariseAfter, Label: "Summarise what came after it",
		Detail: "all up to it stays verbatim"})
	m.drawer = pickerOn("Summarise · around the chosen message", entries,
		func(m *Model, which string) tea.Cmd { return m.summariseAround(msg.id, which == summariseAfter) })
	return nil
}

// openSummarise lists the user messages sent after the newest summary.
func (m *Model) openSummarise() tea.Cmd {
	r, st := m.runner, m.opt.Loop.Store
	if r == nil || st == nil {
		return m.setFlash("nothing to summarise yet", 2*time.Second)
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end", 3*time.Second)
	}
	id := r.Session().ID
	return func() tea.Msg {
		h, err := st.LoadHistory(context.Background(), id)
		if err != nil {
			return summariseLoadedMsg{err: err}
		}
		var entries []overlay.PickerEntry
		for _, e := range tokens.VisibleHistory(h).After {
			if e.Message.Role != message.RoleUser || e.Message.Synthetic {
				continue
			}
			var text string
			for _, p := range e.Parts {
				if p.Type == message.PartText {
					text += p.Text
				}
			}
			if strings.TrimSpace(text) == "" {
				continue
			}
			entries = append(entries, overlay.PickerEntry{Value: e.Message.ID, Label: oneLine(termsafe.Strip(text), 70),
				Detail: e.Message.CreatedAt.Local().Format("15:04")})
		}
		return summariseLoadedMsg{entries: entries}
	}
}

// summariseAround compacts everything before the message id (keeping it
// and what follows), or, with after, everything after it (keeping it and
// what came before).
func (m *Model) summariseAround(id string, after bool) tea.Cmd {
	if m.runner == nil || m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end", 3*time.Second)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.compacting = true
	m.stopCompact = cancel
	m.busySince = time.Now()
	r := m.runner
	return func() tea.Msg {
		defer cancel()
		if after {
			return compactedMsg{err: r.CompactAfter(ctx, id, "")}
		}
		return compactedMsg{err: r.CompactUpTo(ctx, id, "")}
	}
}
