package tui

// Checkpoints in the chat: /undo, /redo, /rewind, /diff and /fork, the
// patch summary under a step's tool cards, and the loop's notes about
// checkpoints.
//
// Contract. Every operation is a command against the open runner
// (loop.Runner.Undo, Redo, Rewind, Diff, Fork) and is refused with a
// flash while a turn or a compaction runs. A rewind that changed the
// conversation rebuilds the view from the runner's history, so the chat
// shows what a resume of the session would: the messages taken back are
// gone from view (they stay in the database and the export, and /redo
// brings them back). A notice says exactly what the restore did — each
// file put back, and what could not be, with why. When files changed
// outside the agent since its last snapshot the runner refuses; the chat
// lists them and asks (restore anyway / cancel) before the forced retry.
// /fork copies the session and switches the chat to the copy.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// checkpointState is the chat's part of checkpoints.
type checkpointState struct {
	// notesShown counts the open runner's notes already shown.
	notesShown int
	// rewinding: an undo, redo or rewind runs; messages typed meanwhile
	// wait (sendNext) and go once it is done, else the runner, busy with
	// the rewind, would queue them with no turn to take them.
	rewinding bool
	// openNotices are shown once the session being opened is (a fork's
	// notice, which the open's rebuild of the view would drop).
	openNotices []*noticeItem
	// progress is the checkpoint under way (checkpointline.go).
	progress checkpointLine
}

// Messages of the checkpoint commands, named for what happened.
type (
	rewoundMsg struct {
		gen  int
		op   string // undo, redo or rewind
		mode string // for a rewind: message.RewindBoth, RewindCode, RewindConversation
		res  *loop.RewindResult
		err  error
		// force runs the operation again despite changes made outside
		// the agent (nil once forced).
		force func(ctx context.Context) (*loop.RewindResult, error)
		// reread reads what the chat shows after it (rewindread.go);
		// history and start are what it read.
		reread  func(*rewoundMsg)
		history []message.Entry
		start   chatStart
	}
	diffLoadedMsg struct {
		gen  int
		diff *loop.TurnDiff
		err  error
	}
	forkedMsg struct {
		gen  int
		from string
		sess *message.Session
		err  error
	}
)

// checkpointCommand runs /undo, /redo, /rewind, /diff [N] or /fork.
func (m *Model) checkpointCommand(name, arg string) tea.Cmd {
	r := m.runner
	switch {
	case r == nil && m.opening && m.openErr == nil:
		return m.setFlash("a session is opening…", 2*time.Second)
	case r == nil:
		return m.setFlash("nothing to "+name+" yet: no message was sent in this session", 3*time.Second)
	case m.busy || m.compacting || r.Busy():
		return m.setFlash("the agent is busy: wait for the turn to end or press esc, then /"+name, 3*time.Second)
	case m.cp.rewinding:
		return m.setFlash("a rewind is under way", 2*time.Second)
	}
	switch name {
	case "undo":
		return m.cp.rewind(m.gen, "undo", "", r.Undo, r.UndoForce, rereader(m))
	case "redo":
		return m.cp.rewind(m.gen, "redo", "", r.Redo, r.RedoForce, rereader(m))
	case "rewind", "fork":
		return listTurns(r, m.gen, name) // rewindread.go
	case "diff":
		n := 0
		if arg != "" {
			var err error
			if n, err = strconv.Atoi(arg); err != nil || n < 1 {
				return m.setFlash("/diff N: N numbers the turns from 1 (/diff alone shows the last)", 4*time.Second)
			}
		}
		gen := m.gen
		return func() tea.Msg {
			d, err := r.Diff(context.Background(), n)
			return diffLoadedMsg{gen: gen, diff: d, err: err}
		}
	}
	return nil
}

// rewind runs a rewind, an undo or a redo for the session of generation
// gen; force is its forced form, and reread reads what the chat shows
// after it.
func (cp *checkpointState) rewind(gen int, op, mode string, run, force func(context.Context) (*loop.RewindResult, error), reread func(*rewoundMsg)) tea.Cmd {
	cp.rewinding = true
	return func() tea.Msg {
		res, err := run(context.Background())
		msg := rewoundMsg{gen: gen, op: op, mode: mode, res: res, err: err, force: force, reread: reread}
		reread(&msg)
		return msg
	}
}

// handleRewound shows what an undo, redo or rewind did, or asks before
// overwriting changes made outside the agent.
func (m *Model) handleRewound(msg rewoundMsg) tea.Cmd {
	m.cp.rewinding = false
	if msg.gen != m.gen || m.runner == nil {
		return nil
	}
	return tea.Batch(m.showRewound(msg), m.sendNext())
}

// showRewound shows the result of an undo, redo or rewind.
func (m *Model) showRewound(msg rewoundMsg) tea.Cmd {
	var outside *snapshot.OutsideChangesError
	var other *snapshot.BusyError
	switch {
	case errors.As(msg.err, &outside) && msg.force != nil:
		m.drawer = &outsideDrawer{OutsideDialog: overlay.NewOutsideDialog(msg.op, outside.Files, outside.Why), msg: msg}
		return overlay.Bell
	case errors.As(msg.err, &other):
		return m.setFlash(fmt.Sprintf("not now: session %s is running a tool in this directory; /%s again when it ends", other.Session, msg.op), 5*time.Second)
	case msg.err != nil && msg.res == nil:
		text := msg.err.Error()
		if strings.Contains(text, "nothing to") || strings.Contains(text, "is busy") {
			return m.setFlash(text, 4*time.Second)
		}
		m.chat.notice(noticeError, text, "")
		m.chat.toBottom()
		return nil
	case msg.err != nil:
		// Done in part (the files were restored, the record failed).
		m.chat.notice(noticeError, msg.err.Error(), "")
	}
	res := msg.res
	if len(res.Messages) > 0 {
		m.rebuildConversation(msg.history, msg.start)
	}
	text, hint := rewindSummary(msg.op, msg.mode, res)
	m.chat.notice(noticeInfo, text, hint)
	m.chat.toBottom()
	if msg.op != "redo" && msg.mode != message.RewindCode && res.UserText != "" {
		if cur := m.editor.value(); strings.TrimSpace(cur) == "" {
			m.editor.setValue(res.UserText)
		} else {
			m.editor.setValue(res.UserText + "\n\n" + cur)
		}
	}
	return nil
}

// rewindSummary is the notice of an undo, redo or rewind: what was taken
// back (or brought back) and what the restore of the files did.
func rewindSummary(op, mode string, res *loop.RewindResult) (text, hint string) {
	n := len(res.Messages)
	switch {
	case op == "redo":
		text = fmt.Sprintf("redo: brought back %d message%s", n, plural(n))
	case op == "undo":
		text = fmt.Sprintf("undo: took back the last turn (%d message%s, kept in the session)", n, plural(n))
	case mode == message.RewindCode:
		text = "rewind (code only): the conversation stays as it is"
	default:
		what := "code and conversation"
		if mode == message.RewindConversation {
			what = "conversation only"
		}
		text = fmt.Sprintf("rewind (%s): took back %d message%s (kept in the session)", what, n, plural(n))
	}
	switch {
	case res.Restore != nil:
		text += "\n" + loop.DescribeRestore(res.Restore)
	case res.FilesNote != "" && mode != message.RewindConversation:
		text += "\nfiles not restored: " + res.FilesNote
	case mode == message.RewindConversation:
		text += "\nthe files stay as they are"
	}
	if lost := loop.NotRestorableLines(res.Lost); lost != "" {
		text += "\n" + lost
	}
	if op != "redo" && mode != message.RewindCode && res.UserText != "" {
		hint = "Your message is back in the editor: edit it and send, or /redo to bring the turn back."
	} else if op != "redo" {
		hint = "/redo takes this back."
	}
	return text, hint
}

// rebuildConversation lays the conversation out again from the runner's
// history (chatHistory's, read with the rewind), after a rewind or redo
// changed which messages it holds. The editor's history of sent messages
// is kept as it was.
func (m *Model) rebuildConversation(history []message.Entry, start chatStart) {
	hist, idx := m.editor.history, m.editor.histIdx
	m.loadHistory(history)
	startEarlier(m, history, start)
	m.editor.history, m.editor.histIdx = hist, idx
	m.chat.focus = nil
}

// outsideDrawer puts overlay.OutsideDialog in the chat's drawer slot and
// acts on its answer: restore anyway runs msg's rewind forced, cancel
// says that no file was touched.
type outsideDrawer struct {
	*overlay.OutsideDialog
	msg rewoundMsg
}

func (o *outsideDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	if res, _ := o.Update(chatHost{m}, msg); res != overlay.Close {
		return res, nil
	}
	if !o.Restore() {
		return drawerClose, m.setFlash(o.msg.op+" cancelled: no file was touched", 3*time.Second)
	}
	forced := o.msg
	forced.force = nil
	run := o.msg.force
	m.cp.rewinding = true
	return drawerClose, func() tea.Msg {
		forced.res, forced.err = run(context.Background())
		if forced.reread != nil {
			forced.reread(&forced)
		}
		return forced
	}
}

func (o *outsideDrawer) view(m *Model, width, height int) []string {
	return o.View(chatHost{m}, width, height)
}

// opened runs once a session is open: the notices waiting for it go to
// chat, and the runner's notes are to be shown afresh (showNotes:
// checkpoints are off and why; a restore finished at start-up).
func (cp *checkpointState) opened(chat *chatView) {
	cp.notesShown = 0
	for _, n := range cp.openNotices {
		chat.add(n)
	}
	cp.openNotices = nil
}

// showNotes shows the runner's notes not shown yet. An EventNote only
// says there is one: Notes is the list, so none is shown twice or lost
// to the open's rebuild of the view.
func (m *Model) showNotes() {
	if m.runner == nil {
		return
	}
	notes := m.runner.Notes()
	for _, n := range notes[min(m.cp.notesShown, len(notes)):] {
		m.chat.notice(noteKind(n), termsafe.Strip(n), "")
	}
	m.cp.notesShown = len(notes)
}

// noteKind styles a note of the runner: a warning when checkpoints are
// off, a snapshot failed or an instruction file is skipped.
func noteKind(note string) noticeKind {
	if strings.Contains(note, "checkpoints are off") || strings.Contains(note, "failed") || strings.Contains(note, " is skipped: ") {
		return noticeWarn
	}
	return noticeInfo
}

// handleDiffLoaded opens the /diff overlay.
func (m *Model) handleDiffLoaded(msg diffLoadedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	if msg.err != nil {
		return m.setFlash(msg.err.Error(), 4*time.Second)
	}
	m.drawer = &diffDrawer{d: msg.diff}
	return nil
}

// insert puts an item into the conversation at position at.
func (c *chatView) insert(at int, it item) {
	at = min(max(at, 0), len(c.items))
	c.items = append(c.items, nil)
	copy(c.items[at+1:], c.items[at:])
	c.items[at] = it
	if !c.follow && c.top.idx >= at && len(c.items) > 1 {
		c.top.idx++
	}
}

// addPatch shows a step's patch part: a line under the step's cards.
// While the turn runs the part arrives after later items (the "after"
// snapshot is joined during the next request), so it goes after the last
// item of its message; from the history it comes in order.
func (m *Model) addPatch(p *message.Part, final bool) {
	if p.Patch == nil {
		return
	}
	if it, ok := m.parts[p.ID].(*patchItem); ok {
		it.state = *p.Patch
		it.ver++
		return
	}
	it := &patchItem{state: *p.Patch}
	m.parts[p.ID] = it
	if !final && m.runner != nil {
		if at := lastItemOf(m.runner.History(), m.parts, m.chat.items, p.MessageID); at >= 0 {
			m.chat.insert(at+1, it)
			return
		}
	}
	m.chat.add(it)
}

// lastItemOf returns the position in the conversation items of the last
// item of a message of history h, or -1; parts maps a part to its item.
func lastItemOf(h []message.Entry, parts map[string]item, items []item, messageID string) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Message.ID != messageID {
			continue
		}
		mine := map[item]bool{}
		for _, part := range h[i].Parts {
			if it, ok := parts[part.ID]; ok {
				mine[it] = true
			}
		}
		for j := len(items) - 1; j >= 0; j-- {
			if mine[items[j]] {
				return j
			}
		}
		return -1
	}
	return -1
}
