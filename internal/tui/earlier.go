package tui

// earlier.go: the chat opens a session's tail and loads what lies above
// it as the user scrolls there (issue 36, "the chat holds what is on
// screen"). At open and after a rewind the chat is given the last
// chatOpenMessages messages of the history the runner holds (no read of
// what lies before its window); when more lie above, a "loading earlier
// messages…" row is the chat's first item, and once it is on screen a
// command — never the Update goroutine — reads the page above the oldest
// message shown (storage.Window.Earlier). earlierLoadedMsg puts the
// page's items above, in order, keeping what was on screen where it was.
// Inline mode leaves the past to the terminal's scrollback and is given
// the whole history, as before. The editor's history of sent messages
// holds those of the messages read.

import (
	"context"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/todo"
)

const (
	// chatOpenMessages is how many messages the chat opens with: pages
	// of a conversation above the screen.
	chatOpenMessages = 120
	// earlierPage is how many messages a scroll to the top reads.
	earlierPage = 100
)

// earlierState is what the chat knows of the messages above its first.
type earlierState struct {
	from    string      // the oldest message read ("" none)
	more    bool        // older messages are stored
	loading bool        // a page is being read
	row     *noticeItem // the chat's first item while more
}

// chatStart is what the chat opens with besides its messages.
type chatStart struct {
	more bool      // messages lie before the first given
	todo todo.List // the newest todo list, when it lies before them
	read int       // the messages the runner's open read (memrelease.go)
}

// earlierLoadedMsg carries the page above message before.
type earlierLoadedMsg struct {
	gen     int
	before  string
	entries []message.Entry
	more    bool
	err     error
}

// historyRead is called as readHistory or chatHistory reads the
// database: a test checks that it is never on the Update goroutine.
var historyRead = func() {}

// readHistory reads a runner's whole history (loop.WholeHistory).
func readHistory(r *loop.Runner) []message.Entry {
	historyRead()
	h, _ := loop.WholeHistory(context.Background(), r)
	return h
}

// chatHistory is what the chat shows of r's session: the last
// chatOpenMessages messages of the history r holds and what it needs to
// know of the rest (st is asked whether messages lie before r's window).
// Inline mode's is the whole history. It reads the database: call it
// from a command.
func chatHistory(r *loop.Runner, st *storage.Store, inline bool) ([]message.Entry, chatStart) {
	if inline {
		return readHistory(r), chatStart{}
	}
	historyRead()
	h := r.History()
	start := chatStart{read: len(h)}
	if len(h) > chatOpenMessages {
		tail := h[len(h)-chatOpenMessages:]
		if l, at := todo.LatestIn(h); at != "" && at < tail[0].Message.ID {
			start.todo = l
		}
		start.more = true
		return slices.Clone(tail), start
	}
	if len(h) > 0 && st != nil {
		// A page of none: whether anything lies above the runner's window.
		_, start.more, _ = st.Window().Earlier(context.Background(), r.Session().ID, h[0].Message.ID, 0)
	}
	return h, start
}

// startEarlier puts the row of earlier messages above the conversation
// just built from history, when start says more lie above.
func startEarlier(m *Model, history []message.Entry, start chatStart) {
	c := m.chat
	c.earlier = earlierState{}
	if start.todo != nil && m.editor.todo.list == nil {
		m.editor.todo.set(start.todo)
	}
	if !start.more || len(history) == 0 || m.inline {
		return
	}
	c.earlier = earlierState{from: history[0].Message.ID, more: true,
		row: &noticeItem{kind: noticeMarker, text: "loading earlier messages…"}}
	c.items = append([]item{c.earlier.row}, c.items...)
	c.rows = c.rows[:0]
	if !c.follow {
		c.top.idx++
	}
}

// loadEarlier starts reading the page above the chat's first message
// once its row is on screen (nil otherwise, or while one is read).
func loadEarlier(m *Model) tea.Cmd {
	if !earlierShown(m.chat) {
		return nil
	}
	return readEarlier(m, earlierPage)
}

// loadAllEarlier starts reading every message above the chat's first:
// a search (find.go) looks through the whole conversation.
func loadAllEarlier(m *Model) tea.Cmd { return readEarlier(m, 0) }

// readEarlier reads the n messages above the chat's first (0: all of
// them) in a command; nil when none are left or some are being read.
func readEarlier(m *Model, n int) tea.Cmd {
	e := &m.chat.earlier
	if !e.more || e.loading || m.runner == nil {
		return nil
	}
	e.loading = true
	gen, store, id, before := m.gen, m.store, m.runner.Session().ID, e.from
	return func() tea.Msg {
		msg := earlierLoadedMsg{gen: gen, before: before}
		st, err := store.wait()
		switch {
		case err != nil:
			msg.err = err
		case n == 0:
			msg.entries, msg.err = st.Window().Before(context.Background(), id, before)
		default:
			msg.entries, msg.more, msg.err = st.Window().Earlier(context.Background(), id, before, n)
		}
		return msg
	}
}

// earlierShown reports whether the row of earlier messages is on screen
// (the view starts at it, or the last layout drew it).
func earlierShown(c *chatView) bool {
	if len(c.items) == 0 || c.items[0] != c.earlier.row {
		return false
	}
	if !c.follow && c.top.idx == 0 {
		return true
	}
	first, _, ok := shownItems(c.rows)
	return ok && first == 0
}

// apply puts the page's items above the conversation, below the row if
// more remain, and keeps the lines on screen where they were; an open
// search looks through them too, and has the rest read.
func (msg earlierLoadedMsg) apply(m *Model) tea.Cmd {
	c := m.chat
	e := &c.earlier
	if msg.gen != m.gen || !e.loading || e.from != msg.before || len(c.items) == 0 || c.items[0] != e.row {
		return nil
	}
	e.loading = false
	if msg.err != nil {
		e.more = false
		e.row.text = "earlier messages could not be read: " + msg.err.Error()
		e.row.ver++
		return nil
	}
	msg.prepend(m)
	if d, ok := m.drawer.(*findDrawer); ok {
		searchAgain(d, m)
		return loadAllEarlier(m)
	}
	return nil
}

// searchAgain looks for an open search's query in the conversation
// again, keeping the hit shown.
func searchAgain(d *findDrawer, m *Model) {
	hits, cur := len(d.hits), d.cur
	d.query = ""
	d.search(m)
	if cur >= 0 {
		d.show(m, cur+len(d.hits)-hits)
	}
}

// prepend puts the page's items above the conversation.
func (msg earlierLoadedMsg) prepend(m *Model) {
	c := m.chat
	e := &c.earlier
	rc := &m.rc
	shown := 0 // the row's lines on screen
	if !c.follow && c.top.idx == 0 {
		shown = max(0, len(e.row.lines(rc))-c.top.off)
	}
	kept := c.items[1:]
	compaction, list := m.compaction, m.editor.todo.list
	m.compaction.last = nil // a card of the page is the page's
	c.items = nil
	for i := range msg.entries {
		if !msg.entries[i].Message.Rewound() {
			addEntry(m, &msg.entries[i], false, nil)
		}
	}
	added := c.items
	m.compaction, m.editor.todo.list = compaction, list
	if len(msg.entries) > 0 {
		e.from = msg.entries[0].Message.ID
	}
	e.more = msg.more && len(msg.entries) > 0
	var head []item
	if e.more {
		head = []item{e.row}
	}
	c.items = append(append(head, added...), kept...)
	c.rows = c.rows[:0] // the last layout's rows name other items now
	if c.follow {
		return
	}
	if c.top.idx == 0 {
		c.top = chatPos{idx: len(head) + len(added)}
		c.scrollUp(rc, shown)
		return
	}
	c.top.idx += len(head) + len(added) - 1
}
