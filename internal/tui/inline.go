package tui

// Inline mode (ui.mode inline, or --inline): the chat runs on the
// terminal's main screen instead of the alternate one. An item of the
// conversation that can no longer change — a user message, a reply whose
// Markdown is rendered, a finished tool card, a marker — is printed once
// into the terminal's own scrollback, where the terminal's search,
// selection and copy work; what can still change (the streaming reply, a
// running tool, dialogs and panels, the editor, the status line) is the
// live region that Bubble Tea redraws.
//
// Items are printed in conversation order: one that has not settled holds
// back the ones after it. One print is in flight at a time (a print and
// its acknowledgement run as a sequence), so the scrollback never gets
// them out of order. Printed items stay in memory (for copying) but are
// never drawn again; a resize re-lays out only the live region.
//
// Bubble Tea prints above the frame it drew last, and it draws on its own
// ticker: when a piece of a print goes out, the frame on the terminal may
// be one the model has since replaced (the tall frame of a reply that
// streamed, a closed overlay's blank rows). Its insertAbove scrolls by the
// piece, then moves up the piece plus that frame's height; past the top
// of the terminal the move stops short, the frame's top rows go into the
// scrollback and the frame is garbled. So no frame is ever taller than
// liveCap (liveSpareRows short of the terminal) and a print goes out in
// pieces that fit above a frame of that height, whichever frame was drawn
// last.
//
// A frame shrinks only once a print's first piece has gone out (liveFloor
// holds it until then): when a frame shrinks, Bubble Tea moves up from its
// cursor no further than the new frame's height and leaves the old
// frame's top rows on the screen, where the print would push them into the
// scrollback (the tail of a reply that streamed, twice). insertAbove
// leaves its cursor at the top of the frame, so a shrink drawn after it
// clears the whole old frame. So every printed line reaches the scrollback
// once, and no row of the live region does.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// resumeInlineMessages is how many messages of a resumed session inline
// mode prints at start; the older ones are named in a note.
const resumeInlineMessages = 20

// liveSpareRows is how many rows the live region leaves free at the top
// of the terminal in inline mode; a print goes out liveSpareRows-1 lines
// at a time.
const liveSpareRows = 3

// printedMsg acknowledges a print: it arrives after the terminal got it.
// printStartedMsg arrives after its first piece: the frame may shrink.
type (
	printedMsg      struct{}
	printStartedMsg struct{}
)

// settledState is what settled needs of the chat: whether a turn runs,
// whether the welcome screen's branch is known, and the card of the
// !command that runs (nil for none).
type settledState struct {
	busy, branchKnown bool
	running           item
}

// settled reports whether an item can no longer change, so that inline
// mode can print it into the scrollback; rc is the layout's.
func settled(it item, rc *renderCtx, st settledState) bool {
	switch it := it.(type) {
	case *userItem, *noticeItem:
		return true
	case *welcomeItem:
		return st.branchKnown
	case *textItem:
		return !it.streaming() && it.doc.rendered(rc.width-2, rc.th.Dark)
	case *reasoningItem:
		return !it.streaming
	case *toolItem:
		// A call the turn left unfinished settles when the turn ends; a
		// running !command's card never does (it is replaced).
		if st.running != nil && it == st.running {
			return false
		}
		return it.state.Status == message.ToolCompleted || it.state.Status == message.ToolError || !st.busy
	case *retryItem:
		return it.done
	case *compactionItem:
		return it.state != nil
	}
	return !st.busy
}

// printSettled prints the settled items at the head of the live region,
// unless a print is in flight. It runs before the layout.
func (m *Model) printSettled() tea.Cmd {
	c := m.chat
	if !m.inline || m.printing || !m.sized {
		return nil
	}
	st := settledState{busy: m.busy, branchKnown: m.branchKnown}
	if m.bang != nil {
		st.running = m.bang.item
	}
	var lines []string
	for c.printed < len(c.items) && settled(c.items[c.printed], &m.rc, st) {
		for _, l := range c.items[c.printed].lines(&m.rc) {
			lines = append(lines, " "+l)
		}
		c.printed++
	}
	if len(m.printAhead) > 0 {
		lines = append(m.printAhead, lines...)
		m.printAhead = nil
	}
	// Finished replies wait for their Markdown: ask for the renders of
	// those out of view too (a resumed history), which the layout would
	// not.
	for _, it := range c.items[c.printed:] {
		if t, ok := it.(*textItem); ok && !t.streaming() {
			t.lines(&m.rc)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	m.printing = true
	return printLines(m.printCmd, m.height, lines)
}

// printLines sends lines to the scrollback (with printCmd) in pieces that
// fit above any frame inline mode draws in a terminal of height rows,
// followed by the acknowledgement that allows the next print.
func printLines(printCmd func(string) tea.Cmd, height int, lines []string) tea.Cmd {
	piece := printPiece(height)
	cmds := make([]tea.Cmd, 0, len(lines)/piece+3)
	for first := true; len(lines) > 0; first = false {
		n := min(piece, len(lines))
		cmds = append(cmds, printCmd(strings.Join(lines[:n], "\n")))
		if first {
			cmds = append(cmds, func() tea.Msg { return printStartedMsg{} })
		}
		lines = lines[n:]
	}
	cmds = append(cmds, func() tea.Msg { return printedMsg{} })
	return tea.Sequence(cmds...)
}

// liveCap is the most rows a frame of inline mode has in a terminal of
// height rows.
func liveCap(height int) int { return max(1, height-liveSpareRows) }

// printPiece is the most lines a piece of a print has in a terminal of
// height rows: Bubble Tea moves up the piece plus the frame's height less
// one, which stays on the terminal for any frame of at most liveCap rows.
func printPiece(height int) int { return max(1, height-1-liveCap(height)) }

// capFrame keeps the last liveCap rows of an inline frame of rows rows:
// in a terminal too short for the editor and the status line, the top of
// the live region goes rather than the guarantee print relies on.
func capFrame(frame string, rows, height int) string {
	for drop := rows - liveCap(height); drop > 0; drop-- {
		i := strings.IndexByte(frame, '\n')
		if i < 0 {
			break
		}
		frame = frame[i+1:]
	}
	return frame
}

// inlineKey answers the keys that move a full-screen view: inline mode
// has none to move, the terminal scrolls its own scrollback.
func (m *Model) inlineKey(s string) (tea.Cmd, bool) {
	switch s {
	case "pgup", "pgdown", "ctrl+home", "ctrl+end":
		return m.setFlash("inline mode: the conversation is in the terminal's scrollback; scroll it there (shift+pgup, or tmux's copy mode)", 4*time.Second), true
	case "ctrl+f":
		return m.setFlash("inline mode: search the scrollback with the terminal's own search (tmux: prefix [ then ?)", 4*time.Second), true
	case "ctrl+o":
		if i := m.chat.focusedItem(); i >= m.chat.printed {
			m.chat.items[i].toggle()
			return nil, true
		}
		// A card in the scrollback cannot change: ctrl+o prints the
		// newest one again below, expanded.
		ls, ok := m.chat.expandedPrinted(&m.rc)
		if !ok {
			return m.setFlash("no card to expand", 2*time.Second), true
		}
		m.printAhead = append(m.printAhead, ls...)
		return nil, true
	}
	return nil, false
}

// expandedPrinted returns the lines of the newest printed card,
// expanded and indented as a print, or false when no printed card
// expands.
func (c *chatView) expandedPrinted(rc *renderCtx) ([]string, bool) {
	for i := c.printed - 1; i >= 0; i-- {
		it := c.items[i]
		if !expandable(it) {
			continue
		}
		it.toggle()
		ls := it.lines(rc)
		it.toggle()
		out := make([]string, 0, len(ls))
		for _, l := range ls {
			out = append(out, " "+l)
		}
		return out, true
	}
	return nil, false
}

// boundResume keeps the last resumeInlineMessages messages of a resumed
// history for printing, and says how many were left out.
func boundResume(history []message.Entry) (skip int, note *noticeItem) {
	if len(history) <= resumeInlineMessages {
		return 0, nil
	}
	skip = len(history) - resumeInlineMessages
	return skip, &noticeItem{kind: noticeMarker, text: fmt.Sprintf("%d earlier messages not shown: agent sessions show prints them", skip)}
}
