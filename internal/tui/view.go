package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/termsafe"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// layout sizes the parts of the screen and lays the conversation out.
func (m *Model) layout() {
	w := m.rc.size(m.width, &m.renderWidth)
	if m.editor.ta.Width() != w-2 {
		m.editor.setWidth(w)
	}
	avail := m.height - m.editor.height() - 2 // the rule and the status line
	if m.inline {
		avail -= liveSpareRows // the live region stays shorter than the terminal
	}
	var lines []string
	if m.questions.Len() > 0 {
		lines = m.questions.View(chatHost{m}, w, max(4, avail-3))
	} else if m.drawer != nil {
		lines = m.drawer.view(m, w, max(4, avail-3))
	} else if comps := m.editor.completions(); len(comps) > 0 {
		lines = popupLines(m.th, m.editor.sel, comps, w, avail-1)
	} else if paths := m.mention.completions(m.editor, workDir(m.sess.Dir, m.opt.Loop.Dir)); len(paths) > 0 {
		lines = mentionPopupLines(m.th, m.editor.sel, paths, w)
	}
	if len(m.images) > 0 {
		lines = append(lines, imageChipsLine(m.th, m.images, w)) // images.go
	}
	if m.flash != "" {
		lines = append(lines, " "+m.th.WarnText.Render(fit(m.flash, w-2)))
	}
	if len(lines) > avail-1 {
		lines = lines[len(lines)-max(0, avail-1):]
	}
	if todo := m.editor.todo.lines(m.th, w, m.busy); len(todo) > 0 && avail-1-len(lines)-len(todo) >= todoPanelChatRows {
		lines = append(todo, lines...) // todopanel.go: shown while the chat keeps some rows
	}
	m.drawerLines = lines
	m.chat.width = w - 2
	m.chat.height = max(1, avail-len(lines))
	m.chat.inline = m.inline
	m.chat.layout(&m.rc)
}

// size sets the width items render at (here, and markdown's in rw)
// from the window's width, and returns the width the screen is laid out
// at.
func (rc *renderCtx) size(width int, rw *renderWidth) int {
	w := max(20, width)
	rc.width = w - 2
	rw.Store(int64(w - 4)) // text items indent by two
	return w
}

// popupLines is the slash-command completion popup, at most rows lines,
// the editor's selection sel highlighted: the entries shown are a window
// that keeps the selected one in view.
func popupLines(th *theme, sel int, comps []command, width, rows int) []string {
	sel = min(sel, len(comps)-1)
	var out []string
	first, last := popupWindow(len(comps), sel, max(1, min(maxPopupEntries, rows-1)))
	for i := first; i < last; i++ {
		c := comps[i]
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		line := fmt.Sprintf(" %-18s %s", name, c.help)
		line = pad(fit(line, width-2), width-2)
		if i == sel {
			line = th.Selected.Render(line)
		} else {
			line = th.Dim.Render(line)
		}
		out = append(out, " "+line)
	}
	hint := "↑↓ choose · tab complete · enter run · esc dismiss"
	if more := len(comps) - (last - first); more > 0 {
		hint = fmt.Sprintf("%d of %d · ", sel+1, len(comps)) + hint
	}
	out = append(out, " "+th.Dim.Render(fit(hint, width-2)))
	return out
}

// maxPopupEntries is the most commands the popup shows at once.
const maxPopupEntries = 12

// popupWindow is the range [first, last) of n entries that shows at most
// size of them with sel among them.
func popupWindow(n, sel, size int) (first, last int) {
	if n <= size {
		return 0, n
	}
	first = max(0, min(sel-size/2, n-size))
	return first, first + size
}

// View draws the screen from the last layout.
func (m *Model) View() tea.View {
	if v, ok := m.prefetch.hold.held(time.Now()); ok {
		return v // the frame before Enter, until the send is out (framehold.go)
	}
	var b strings.Builder
	rows := 0 // inline mode: the frame's height
	if m.inline {
		// The live region never shrinks between two prints: Bubble Tea's
		// inline renderer leaves the top rows of a taller frame on the
		// screen (a closed overlay, a reply just printed), and the next
		// print would push them into the scrollback. Blank rows above
		// hold the height until a print's first piece clears the whole
		// region (printStartedMsg resets the floor). The floor, like
		// every frame, stays within liveCap (inline.go).
		h := len(m.chat.visible) + len(m.drawerLines) + m.editor.height() + 2
		m.liveFloor = min(max(m.liveFloor, h), liveCap(m.height))
		for range m.liveFloor - h {
			b.WriteByte('\n')
		}
		rows = max(m.liveFloor, h)
	}
	focused := m.chat.focusedItem()
	bar := m.th.AccentText.Render("▎")
	for i, l := range m.chat.visible {
		if focused >= 0 && m.chat.rows[i] == focused && l != "" {
			b.WriteString(bar)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range m.drawerLines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(m.ruleLine())
	b.WriteByte('\n')
	m.editor.ta.Placeholder = editorHint(m.busy) // editorhint.go
	b.WriteString(m.editor.view())
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	frame := b.String()
	if m.inline {
		frame = capFrame(frame, rows, m.height)
	}
	v := tea.NewView(frame)
	// Inline mode leaves the screen and the mouse to the terminal: its
	// scrollback, selection and wheel work as they always do.
	v.AltScreen = !m.inline
	v.ReportFocus = m.opt.notify.reportFocus() // notify.go
	if !m.inline {
		v.MouseMode = tea.MouseModeCellMotion
	}
	title := "agent"
	if m.sess.Title != "" {
		title += " · " + termsafe.Strip(m.sess.Title)
	}
	v.WindowTitle = title
	m.prefetch.hold.keep(v)
	return v
}

// ruleLine separates the conversation from the editor; it carries the
// queue badge and says when the view is scrolled up.
func (m *Model) ruleLine() string {
	th := m.th
	w := max(20, m.width)
	left := ""
	if !m.chat.follow {
		left = th.AccentText.Render(" ↓ scrolled up · pgdn or ctrl+end to follow ")
	}
	right := ""
	if len(m.queue) > 0 {
		right = th.Badge.Render(" "+queueBadge(m.queue)+" ") + th.Dim.Render(" ctrl+q ")
	}
	fill := w - ansi.StringWidth(left) - ansi.StringWidth(right) - 2
	if fill < 0 {
		return fit(left+right, w)
	}
	return th.Rule.Render("──") + left + th.Rule.Render(strings.Repeat("─", fill)) + right
}
