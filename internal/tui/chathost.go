package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/tui/overlay"
	uitheme "github.com/ctxloop/agent/internal/tui/theme"
)

// chatHost is what the overlays (internal/tui/overlay) see of the chat:
// overlay.Host, read off the model. It holds the model so that a drawer
// kept open sees the chat as it is now, but it reaches nothing else.
type chatHost struct{ m *Model }

var _ overlay.Host = chatHost{}

func (h chatHost) Theme() *uitheme.Theme { return h.m.th }

func (h chatHost) Width() int { return h.m.width }

func (h chatHost) After(d time.Duration, msg tea.Msg) tea.Cmd { return h.m.after(d, msg) }

func (h chatHost) TextArea(text string, width, maxHeight int) overlay.TextArea {
	return textArea{textEditor(h.m.th, text, width, maxHeight)}
}

// textEditor is an editor of text as the chat's (paste placeholders
// included) for a drawer: width cells wide, at most maxHeight lines high,
// without the message placeholder.
func textEditor(th *theme, text string, width, maxHeight int) *editor {
	ed := newEditor(th)
	ed.ta.MaxHeight = maxHeight
	ed.ta.Placeholder = ""
	ed.setWidth(width)
	ed.setValue(text)
	return ed
}

// textArea is the chat's editor as an overlay.TextArea: a long text shows
// as a paste placeholder, and Text expands it.
type textArea struct{ ed *editor }

func (a textArea) Update(msg tea.Msg) tea.Cmd { return a.ed.update(msg) }

func (a textArea) View() string { return a.ed.view() }

func (a textArea) SetWidth(width int) { a.ed.setWidth(width) }

func (a textArea) Text() string { return a.ed.expand(a.ed.value()) }
