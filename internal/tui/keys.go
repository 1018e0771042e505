package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// wheelLines is how far one wheel notch scrolls.
const wheelLines = 3

// handleKey routes a key: Ctrl+C always; then an open question from the
// loop, for its own keys only (overlay/questions.go); scrolling; an open drawer; the command popup; the chat's own keys;
// and last the editor.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.ctrlC()
	}
	if cmd, taken := m.questions.Key(chatHost{m}, k); taken {
		return cmd
	}
	if m.editor.search.key(m.editor, k) { // Ctrl+R's search: histsearch.go
		return nil
	}
	if m.cp.progress.key(s) { // checkpointline.go
		return nil
	}
	if d, ok := m.drawer.(*diffDrawer); ok && d.scrollKey(s) {
		return nil
	}
	if d, ok := m.drawer.(helpDrawer); ok && d.ScrollKey(k) {
		return nil // overlay/help.go
	}
	if m.inline {
		switch s {
		case "pgup", "pgdown", "ctrl+home", "ctrl+end":
			cmd, _ := m.inlineKey(s)
			return cmd
		}
	}
	switch s {
	case "pgup":
		m.chat.scrollUp(&m.rc, max(1, m.chat.height-2))
		return nil
	case "pgdown":
		m.chat.scrollDown(&m.rc, max(1, m.chat.height-2))
		return nil
	case "ctrl+end":
		m.chat.toBottom()
		return nil
	case "ctrl+home":
		m.chat.toTop()
		return nil
	}
	if m.drawer != nil {
		res, cmd := m.drawer.update(m, k)
		switch res {
		case drawerKeep:
			return cmd
		case drawerClose:
			m.drawer = nil
			return cmd
		case drawerPass:
			m.drawer = nil
		}
	}
	if cmd, taken := m.mention.key(m.editor, workDir(m.sess.Dir, m.opt.Loop.Dir), s); taken {
		return cmd
	}
	if comps := m.editor.completions(); len(comps) > 0 {
		sel := min(m.editor.sel, len(comps)-1)
		switch s {
		case "up", "ctrl+p":
			m.editor.sel = (sel + len(comps) - 1) % len(comps)
			return nil
		case "down", "ctrl+n":
			m.editor.sel = (sel + 1) % len(comps)
			return nil
		case "tab":
			c := comps[sel]
			v := "/" + c.name
			if c.args != "" {
				v += " "
			}
			m.editor.setValue(v)
			return nil
		case "enter":
			c := comps[sel]
			if c.custom {
				return m.pickCustom(c) // custom.go
			}
			m.editor.remember("/" + c.name)
			m.editor.reset()
			return m.runCommand(c.name, "")
		case "esc":
			m.editor.dismissed = m.editor.value()
			return nil
		}
	}
	if m.editor.vi.key(m.editor, k) { // ui.vi: vimode.go
		return nil
	}
	switch s {
	case "esc":
		return jobsOnEsc(m.opt.Loop.Jobs, m.opt.jobsEsc, m.interrupt(), m.setFlash) // twice: jobs.go
	case "enter":
		return m.submitAs(message.KindSteer) // Enter steers a running turn
	case "tab":
		if cmd, ok := m.queueForLater(); ok {
			return cmd
		}
	case "shift+tab":
		return togglePlanMode(m) // planmode.go
	case "ctrl+o":
		return m.toggleFocused()
	case "alt+o":
		m.rc.toggleAll()
		return nil
	case "alt+y":
		return m.copySelected(false)
	case "alt+up":
		m.chat.moveFocus(&m.rc, -1)
		return nil
	case "alt+down":
		m.chat.moveFocus(&m.rc, 1)
		return nil
	case "ctrl+q":
		m.drawer = newQueueDrawer()
		return nil
	case toggleTodoKey: // todopanel.go
		if m.editor.todo.toggle() {
			return nil
		}
	case "ctrl+v":
		return pasteClipboardImage(imageStore(m.opt.Loop.Config)) // images.go
	case "backspace":
		if m.editor.value() == "" && len(m.images) > 0 {
			m.images = m.images[:len(m.images)-1]
			return nil
		}
	case "ctrl+f":
		return m.openFind("")
	case "ctrl+r":
		m.editor.search.start(m.editor)
		return nil
	case "ctrl+g":
		return editMessageExternal(m.editor, m.setFlash) // externaledit.go
	case "up":
		if m.editor.atFirstLine() {
			if m.editor.value() == "" && len(m.queue) > 0 && m.runner != nil {
				r := m.runner
				return func() tea.Msg {
					q, ok, err := r.PullBack(context.Background())
					return pulledBackMsg{text: q.Text, images: q.Images, ok: ok, err: err}
				}
			}
			if m.editor.historyPrev() {
				return nil
			}
		}
	case "down":
		if m.editor.atLastLine() && m.editor.historyNext() {
			return nil
		}
	}
	cmd := m.editor.update(k)
	m.editor.sel = 0
	return tea.Batch(cmd, m.mention.await(m.editor, workDir(m.sess.Dir, m.opt.Loop.Dir)))
}

// ctrlC clears the editor; a second press within quitWindow quits.
func (m *Model) ctrlC() tea.Cmd {
	now := time.Now()
	if !m.quitArmed.IsZero() && now.Sub(m.quitArmed) < quitWindow {
		return tea.Quit
	}
	m.quitArmed = now
	m.editor.reset()
	return m.setFlash("press ctrl+c again to quit", quitWindow)
}

// handlePaste routes a paste, its line endings normalised first: tmux
// and many terminals send CR (or CRLF) between the lines of a paste.
func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	msg.Content = normalizeNewlines(msg.Content)
	if cmd, taken := m.questions.Paste(chatHost{m}, msg); taken {
		return cmd
	}
	if m.drawer != nil {
		switch m.drawer.(type) {
		case *pickerDrawer, queueDrawer, *findDrawer:
			_, cmd := m.drawer.update(m, msg)
			return cmd
		}
		m.drawer = nil
	}
	if path, ok := pastedImagePath(msg.Content, workDir(m.sess.Dir, m.opt.Loop.Dir)); ok { // images.go
		return attachImageFile(imageStore(m.opt.Loop.Config), path)
	}
	return m.editor.update(msg)
}

// wheel scrolls the conversation by wheelLines a notch.
func (c *chatView) wheel(rc *renderCtx, msg tea.MouseWheelMsg) {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		c.scrollUp(rc, wheelLines)
	case tea.MouseWheelDown:
		c.scrollDown(rc, wheelLines)
	}
}

// click expands or collapses the item clicked in the conversation.
func (c *chatView) click(msg tea.MouseClickMsg) {
	mouse := msg.Mouse()
	if mouse.Button != tea.MouseLeft || mouse.Y >= c.height {
		return
	}
	if it, ok := c.itemAt(mouse.Y); ok {
		it.toggle()
	}
}

// normalizeNewlines turns CRLF and lone CR line endings into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
