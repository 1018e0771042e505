package tui

// Opening a session is I/O (the lease, repair, the history), so it runs
// as a command; each runner the chat opens is a new generation, and what
// an older runner still sends is dropped.

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// openSession opens a runner for sessionID ("" for a new session) as a
// new generation, closing the current one.
func (m *Model) openSession(sessionID string) tea.Cmd {
	m.gen++
	gen := m.gen
	old := m.runner
	m.runner = nil
	m.opening = true
	m.hooks = hookNotes{}
	m.fresh = false
	m.openErr = nil
	open := opener(m, sessionID, gen, old, false)
	if sessionID == "" && old == nil {
		open = m.prefetch.takeEarly(gen, m.opt.Loop.Config, m.slot, open) // earlyopen.go
	} else {
		m.prefetch.dropEarly(m.slot) // a resume or a switch: not its session
	}
	return func() tea.Msg {
		if msg := open(); msg.err != errChatClosed {
			return msg
		}
		return nil
	}
}

// opener is what opens a runner for sessionID as generation gen, with
// the chat's options as they are now; it registers the runner in the
// chat's slot, closing old (nil: none) first; early (earlyopen.go) takes
// an empty slot only. It runs off Update.
func opener(m *Model, sessionID string, gen int, old *loop.Runner, early bool) func() openedMsg {
	opts := m.opt.Loop
	opts.Observer = m.box.observer(gen)
	opts.Doom = doomAsker{box: m.box, gen: gen}
	opts.BudgetHint = "raise it with /budget USD" // the chat's way (budget.go)
	opts.Perms = tools.NewPermissions(m.opt.PermModes, permissionAsker{box: m.box, gen: gen}, false).WithDomainMemory(approval.Domains{Store: m.opt.Approvals})
	if sessionID == "" {
		opts.Environment = m.prefetch.take() // prefetch.go
		// The row and lease are written with the first message, in its
		// transaction: one write less between Enter and the request.
		opts.RowOnFirstMessage = true
	}
	slot, store, inline := m.slot, m.store, m.inline
	return func() openedMsg {
		if !slot.begin() {
			return openedMsg{gen: gen, err: errChatClosed} // the chat closed first
		}
		defer slot.end()
		if old != nil && slot.take(old) {
			_ = old.Close()
		}
		if sessionID != "" {
			slot.closeLeftOf(sessionID) // a session /new just left: its lease
		}
		st, err := store.wait() // opening behind the first frame (startup.go)
		if err != nil {
			return openedMsg{gen: gen, err: err}
		}
		opts.Store = st
		r, err := loop.Open(context.Background(), opts, sessionID)
		if err != nil {
			return openedMsg{gen: gen, err: err}
		}
		if early && !slot.fill(r) {
			_ = r.Close() // an open begun since holds the slot
			return openedMsg{gen: gen, err: errChatClosed}
		}
		if prev := slot.swap(r); prev != nil && prev != r {
			// A runner whose close (/new, a switch) had not run yet when
			// this one opened: close it here, or its lease stays held.
			_ = prev.Close()
		}
		history, start := chatHistory(r, st, inline) // earlier.go
		return openedMsg{gen: gen, runner: r, history: history, start: start, sess: r.Session(), snap: r.Reading()}
	}
}

// leaveSession closes the open session and starts a fresh conversation
// (/new); the next message creates its session.
func (m *Model) leaveSession() tea.Cmd {
	m.gen++
	old := m.runner
	m.runner = nil
	m.opening, m.fresh, m.openErr = false, true, nil
	m.prefetch.dropEarly(m.slot) // opened for the generation just left
	if old == nil {
		return nil
	}
	slot := m.slot
	// No longer the open runner at once: an open ahead for the fresh chat
	// (earlyopen.go) may fill the slot before this close runs.
	slot.leave(old)
	return func() tea.Msg {
		if !slot.begin() {
			return nil // Close closes it
		}
		defer slot.end()
		slot.closeLeft(old)
		return nil
	}
}

// sessionModel is the model of session sess, or the one a new session
// will use (cfg's).
func sessionModel(sess message.Session, cfg *config.Config) string {
	if sess.Model != "" {
		return sess.Model
	}
	if cfg != nil {
		return cfg.Model
	}
	return ""
}

func (m *Model) handleOpened(msg openedMsg) tea.Cmd {
	if msg.gen != m.gen {
		if msg.runner != nil {
			r := msg.runner
			return func() tea.Msg { _ = r.Close(); return nil }
		}
		return nil
	}
	m.opening = false
	if msg.err != nil {
		m.openErr = msg.err
		hint := "Quit with ctrl+c and check the data directory, or start another session with /new."
		if strings.Contains(msg.err.Error(), "busy") || strings.Contains(msg.err.Error(), "lease") {
			hint = "Another agent process drives this session. Close it, or start another session with /new."
		}
		m.chat.notice(noticeError, "open session: "+msg.err.Error(), hint)
		return nil
	}
	m.runner = msg.runner
	m.sess = msg.sess
	m.snap = msg.snap
	m.loadHistory(msg.history)
	startEarlier(m, msg.history, msg.start) // earlier.go
	m.cp.opened(m.chat)
	m.showNotes()
	m.hooks.show(m.chat)
	var cmds []tea.Cmd
	cmds = append(cmds, loadQueue(m.runner, m.gen))
	cmds = append(cmds, m.sendNext(), releaseOpenPeak(max(len(msg.history), msg.start.read))) // memrelease.go
	return tea.Batch(cmds...)
}

// loadQueue loads the persisted queue of the session just opened.
func loadQueue(r *loop.Runner, gen int) tea.Cmd {
	return func() tea.Msg {
		q, err := r.Queue(context.Background())
		if err != nil {
			return opFailedMsg{What: "load the queue", Err: err}
		}
		return queueLoadedMsg{gen: gen, queue: q}
	}
}

// loadHistory builds the conversation of a resumed session. Nothing is
// rendered here: items render when they come into view.
//
// In inline mode what is already in the terminal's scrollback stays (it
// cannot be taken back), and only the last resumeInlineMessages messages
// are printed, after a note saying how many were left out.
func (m *Model) loadHistory(history []message.Entry) {
	// A tail shown while the session opened (resume.go): its items stand
	// for the same parts, and a view scrolled up stays where it is.
	reuse := m.tailItems
	m.tailItems = nil
	follow, fromEnd, off := m.chat.follow, len(m.chat.items)-m.chat.top.idx, m.chat.top.off
	m.buildHistory(history, true, reuse)
	if reuse != nil && !follow {
		m.chat.follow = false
		m.chat.top = chatPos{idx: max(0, len(m.chat.items)-fromEnd), off: off}
	}
}

// buildHistory makes the conversation of history; remember puts what the
// user wrote into the editor's history, and reuse holds items to show
// again for the parts they showed.
func (m *Model) buildHistory(history []message.Entry, remember bool, reuse map[string]item) {
	var printed []item
	if m.inline {
		printed = m.chat.items[:m.chat.printed:m.chat.printed]
	}
	m.chat.reset()
	m.compaction.last = nil
	m.editor.todo.set(nil) // the history's newest todo_write sets it again
	clear(m.parts)
	clear(m.msgs)
	if len(printed) > 0 {
		m.chat.items, m.chat.printed = printed, len(printed)
	} else {
		for _, n := range m.opt.Notices {
			m.chat.add(&noticeItem{kind: noticeWarn, text: n})
		}
		if m.opt.Setup != nil {
			m.chat.add(setupNotice(m.opt.Setup))
		}
	}
	skip := 0
	if m.inline {
		var note *noticeItem
		if skip, note = boundResume(history); note != nil {
			m.chat.add(note)
		}
	}
	for i := range history {
		e := &history[i]
		if e.Message.Rewound() {
			continue // taken back: kept in the database, not shown
		}
		if i < skip {
			m.msgs[e.Message.ID] = msgInfo{role: e.Message.Role, synthetic: e.Message.Synthetic, summary: e.Message.Summary}
			if remember {
				m.editor.rememberSent(e)
			}
			continue
		}
		addEntry(m, e, remember, reuse)
	}
	m.chat.toBottom()
}

// addEntry adds the items of a message to the end of the conversation
// (buildHistory; earlier.go's page goes in the same way).
func addEntry(m *Model, e *message.Entry, remember bool, reuse map[string]item) {
	m.msgs[e.Message.ID] = msgInfo{role: e.Message.Role, synthetic: e.Message.Synthetic, summary: e.Message.Summary}
	if e.Message.Summary {
		text := ""
		for _, p := range e.Parts {
			if p.Type == message.PartText {
				text += p.Text
			}
		}
		m.compaction.summaryArrived(m.chat, m.parts, &e.Message, text)
		return
	}
	for j := range e.Parts {
		p := &e.Parts[j]
		if it, ok := reuse[p.ID]; ok && reusable(it, e.Message.Role, p) {
			m.parts[p.ID] = it
			m.chat.add(it)
		}
		m.addPart(e.Message.Role, e.Message.Synthetic, p, true)
	}
	if e.Message.Role == message.RoleAssistant && e.Message.Error != "" && e.Message.Error != loop.ErrSuperseded {
		m.chat.add(messageErrorItem(e.Message.Error))
	}
	if remember {
		m.editor.rememberSent(e)
	}
}

func setupNotice(err error) *noticeItem {
	n := &noticeItem{kind: noticeWarn, text: "Nothing can be sent yet: " + err.Error()}
	if errors.Is(err, config.ErrNoAPIKey) {
		n.text = "No API key and no base URL are set, so nothing can be sent yet."
		n.hint = "For OpenAI: export OPENAI_API_KEY=sk-… and restart.\n" +
			"For a local server (Ollama, llama.cpp, vLLM, LM Studio): export OPENAI_BASE_URL=http://localhost:11434/v1 (or pass --base-url) and restart.\n" +
			"Both can also go in ~/.config/agent/config.json (\"base_url\"); the key only in the environment."
	}
	return n
}

// workDir is the directory the session works in: the session's, else
// the chat's ("" for none). The @ popup offers its files; a relative
// pasted path is in it.
func workDir(sessDir, chatDir string) string {
	if sessDir != "" {
		return sessDir
	}
	return chatDir
}
