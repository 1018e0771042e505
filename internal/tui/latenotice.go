package tui

// Notices the chat shows once they are known, not before its first frame:
// Options.LateNotices runs in a command (off the Update loop, beside the
// first frame) and each text it returns becomes a notice, as Options.Notices
// do at the start. For what costs a process to find out (the sandbox's
// first-run note probes bubblewrap).

import tea "charm.land/bubbletea/v2"

// lateNoticesMsg carries the late notices.
type lateNoticesMsg struct{ texts []string }

func (msg lateNoticesMsg) apply(m *Model) tea.Cmd {
	for _, n := range msg.texts {
		m.chat.add(&noticeItem{kind: noticeWarn, text: n})
	}
	return nil
}

// lateNotices runs fn in a command; nil when there is none.
func lateNotices(fn func() []string) tea.Cmd {
	if fn == nil {
		return nil
	}
	return func() tea.Msg {
		if texts := fn(); len(texts) > 0 {
			return controlMsg(lateNoticesMsg{texts})
		}
		return nil
	}
}
