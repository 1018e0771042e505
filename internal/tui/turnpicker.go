package tui

// The picker of /rewind and /fork: the session's turns, newest first,
// each with its time and what it changed in the files. For a rewind the
// chosen turn then asks what to restore (code and conversation, the
// conversation only, the code only); for a fork the copy keeps the
// conversation up to the end of the chosen turn (or all of it).

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// turnPicker lists the session's turns for /rewind and /fork; for a
// rewind it then asks what to restore.
type turnPicker struct {
	op    string // rewind or fork
	turns []loop.Turn
	// ends are the ids /fork copies up to, per turn: the last message of
	// the turn ("" for the last turn: everything).
	ends []string
	list *picker
	// chosen is the turn whose rewind mode is being picked (-1 while
	// listing); mode the highlighted mode.
	chosen int
	mode   int
}

// rewindModes are the choices of a rewind, in menu order.
var rewindModes = []struct{ mode, label, detail string }{
	{message.RewindBoth, "code and conversation", "restore the files; take back this message and everything after it"},
	{message.RewindConversation, "conversation only", "take back the messages; the files stay as they are"},
	{message.RewindCode, "code only", "restore the files; the conversation stays"},
}

// forkAll is the picker value of /fork's "all of it".
const forkAll = "all"

func newTurnPicker(op string, history []message.Entry, turns []loop.Turn) *turnPicker {
	tp := &turnPicker{op: op, turns: turns, ends: turnEnds(history, turns), chosen: -1}
	title := "Rewind: take the session back to before a message"
	if op == "fork" {
		title = "Fork: copy the conversation up to the end of a turn into a new session"
	}
	p := &picker{title: title}
	if op == "fork" {
		p.entries = append(p.entries, pickerEntry{value: forkAll, label: "all of it", detail: fmt.Sprintf("%d turn%s", len(turns), plural(len(turns)))})
	}
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		p.entries = append(p.entries, pickerEntry{
			value:  strconv.Itoa(i),
			label:  fmt.Sprintf("%d. %s", t.N, oneLine(termsafe.Strip(t.Text), 200)),
			detail: turnDetail(t),
		})
	}
	tp.list = p
	return tp
}

// turnEnds returns, per turn, the id of its last message in the
// conversation as it stands ("" for the last turn).
func turnEnds(history []message.Entry, turns []loop.Turn) []string {
	ends := make([]string, len(turns))
	for i := 0; i+1 < len(turns); i++ {
		next := turns[i+1].MessageID
		for _, e := range history {
			if e.Message.ID >= next {
				break
			}
			if !e.Message.Rewound() {
				ends[i] = e.Message.ID
			}
		}
	}
	return ends
}

// turnDetail is a turn's line in the picker: its time and what it
// changed in the files.
func turnDetail(t loop.Turn) string {
	s := t.At.Local().Format("15:04")
	files := map[string]bool{}
	added, deleted := 0, 0
	for _, p := range t.Patches {
		for _, f := range p.Files {
			files[f.Path] = true
		}
		a, d := p.Lines()
		added, deleted = added+a, deleted+d
	}
	if len(files) == 0 {
		return s + " · no file changed"
	}
	return fmt.Sprintf("%s · %d file%s +%d −%d", s, len(files), plural(len(files)), added, deleted)
}

func (tp *turnPicker) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if tp.chosen >= 0 {
		if !isKey {
			return drawerKeep, nil
		}
		switch s := k.String(); s {
		case "up", "ctrl+p":
			tp.mode = (tp.mode + len(rewindModes) - 1) % len(rewindModes)
		case "down", "ctrl+n", "tab":
			tp.mode = (tp.mode + 1) % len(rewindModes)
		case "1", "2", "3":
			tp.mode = int(s[0] - '1')
			return drawerClose, m.rewindTo(tp.turns[tp.chosen], rewindModes[tp.mode].mode)
		case "enter":
			return drawerClose, m.rewindTo(tp.turns[tp.chosen], rewindModes[tp.mode].mode)
		case "esc":
			tp.chosen = -1
		}
		return drawerKeep, nil
	}
	if !isKey || k.String() != "enter" {
		return tp.list.update(m, msg)
	}
	vis := tp.list.visible()
	if len(vis) == 0 {
		return drawerKeep, nil
	}
	v := vis[min(tp.list.sel, len(vis)-1)].value
	if tp.op == "fork" {
		if v == forkAll {
			return drawerClose, forkCmd(m.runner, m.gen, m.sess.ID, "")
		}
		i, _ := strconv.Atoi(v)
		return drawerClose, forkCmd(m.runner, m.gen, m.sess.ID, tp.ends[i])
	}
	tp.chosen, _ = strconv.Atoi(v)
	tp.mode = 0
	return drawerKeep, nil
}

func (tp *turnPicker) view(m *Model, width, height int) []string {
	if tp.chosen < 0 {
		return tp.list.view(m, width, height)
	}
	th := m.th
	inner := max(10, width-4)
	t := tp.turns[tp.chosen]
	body := []string{th.UserBar.Render("▌") + " " + th.UserText.Render(oneLine(termsafe.Strip(t.Text), inner-2))}
	var paths []string
	seen := map[string]bool{}
	for _, later := range tp.turns[tp.chosen:] {
		for _, p := range later.Patches {
			for _, f := range p.Files {
				if !seen[f.Path] {
					seen[f.Path] = true
					paths = append(paths, termsafe.Strip(f.Path))
				}
			}
		}
	}
	if len(paths) == 0 {
		body = append(body, th.Dim.Render("no file changed since this message"))
	} else {
		body = append(body, th.Dim.Render(fit(fmt.Sprintf("files changed since: %s", strings.Join(paths, ", ")), inner)))
	}
	body = append(body, "")
	for i, c := range rewindModes {
		line := fmt.Sprintf("%d. %-22s %s", i+1, c.label, c.detail)
		if i == tp.mode {
			line = th.Selected.Render(pad(fit(line, inner), inner))
		} else {
			line = fit(line, inner)
		}
		body = append(body, line)
	}
	return frameLines(th, fmt.Sprintf("Rewind to before turn %d: restore what?", t.N), clampBody(body, height, len(body)-1), "↑↓ choose · enter rewind · esc back", width)
}

// rewindTo rewinds the session to before turn t.
func (m *Model) rewindTo(t loop.Turn, mode string) tea.Cmd {
	r := m.runner
	if r == nil {
		return nil
	}
	if m.busy || m.compacting {
		return m.setFlash("the agent is busy: wait for the turn to end or press esc, then /rewind", 3*time.Second)
	}
	id := t.MessageID
	run := func(force bool) func(context.Context) (*loop.RewindResult, error) {
		return func(ctx context.Context) (*loop.RewindResult, error) {
			return r.Rewind(ctx, id, loop.RewindOptions{Mode: mode, Force: force})
		}
	}
	return m.cp.rewind(m.gen, "rewind", mode, run(false), run(true))
}

// forkCmd copies session from up to message atID ("" for all of it)
// through its runner r (nothing without one); gen is the chat's
// generation.
func forkCmd(r *loop.Runner, gen int, from, atID string) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		s, err := r.Fork(context.Background(), atID)
		return forkedMsg{gen: gen, from: from, sess: s, err: err}
	}
}

// handleForked switches the chat to the fork.
func (m *Model) handleForked(msg forkedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	if msg.err != nil {
		m.chat.notice(noticeError, "fork: "+msg.err.Error(), "")
		m.chat.toBottom()
		return nil
	}
	text := fmt.Sprintf("forked session %s into %s", msg.from, msg.sess.ID)
	if cmd := m.refuseSwitch(); cmd != nil {
		m.chat.notice(noticeInfo, text, "/sessions opens the fork.")
		return cmd
	}
	m.resetConversation()
	m.cp.openNotices = append(m.cp.openNotices, &noticeItem{kind: noticeInfo, text: text + ": this is the fork", hint: "/sessions goes back to the original."})
	return m.openSession(msg.sess.ID)
}
