package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
)

// editorMaxHeight is the most rows the editor grows to; longer text
// scrolls inside it.
const editorMaxHeight = 8

// maxHistory bounds the editor's history.
const maxHistory = 500

// A paste (or a text handed back to the editor) larger than these limits
// is kept out of the textarea, which re-lays out its whole content on every
// keystroke: the editor shows a placeholder such as
// "[paste #1 · 2,400 lines · 96.0 KB]" and the full text is sent in its
// place.
const (
	collapseBytes = 8 << 10
	collapseLines = 200
)

// editor is the input at the bottom: Enter sends (the root model handles
// it), Shift+Enter, Ctrl+J or Alt+Enter insert a newline, pastes are text,
// Up and Down at the first or last line walk the history of sent
// messages.
type editor struct {
	ta      textarea.Model
	history []string
	histIdx int // len(history) when not browsing
	draft   string

	// The slash-command popup: sel is the highlighted entry; dismissed is
	// the value the user closed the popup for.
	sel       int
	dismissed string
	// custom are the custom commands of the last scan (custom.go),
	// offered after the built-in ones.
	custom []command

	// pastes holds the texts behind placeholders, for the life of the
	// editor (so that history entries holding a placeholder still expand).
	pastes   map[string]string
	pasteSeq int

	// todo is the model's todo list, shown above the editor (todopanel.go).
	todo todoPanel
	// search is Ctrl+R's search of the history (histsearch.go), its
	// line drawn in dim above the editor while it runs.
	search historySearch
	dim    lipgloss.Style
	// vi is the vi keys' mode (ui.vi: vimode.go).
	vi viMode
}

func newEditor(th *theme) *editor {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Placeholder = idleEditorHint // editorhint.go
	ta.CharLimit = 0
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = editorMaxHeight
	ta.MaxContentHeight = 10000
	ta.MaxWidth = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"))
	ta.Focus()
	e := &editor{ta: ta}
	e.ta.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return e.vi.prompt() // vimode.go
		}
		return "  "
	})
	e.setTheme(th)
	return e
}

func (e *editor) setTheme(th *theme) {
	s := textarea.DefaultStyles(th.Dark)
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Focused.Prompt = lipgloss.NewStyle().Foreground(th.Accent).Bold(true)
	s.Focused.Placeholder = th.Dim
	s.Blurred.Prompt = th.Dim
	s.Cursor.Blink = false
	s.Cursor.Color = th.Accent
	e.ta.SetStyles(s)
	e.dim = th.Dim
}

func (e *editor) setWidth(w int) { e.ta.SetWidth(w) }

func (e *editor) height() int {
	if e.search.active {
		return e.ta.Height() + 1
	}
	return e.ta.Height()
}

func (e *editor) value() string { return e.ta.Value() }

// empty reports whether the editor holds no text, without building the
// whole text of a long multi-line one (it is asked after every update).
func (e *editor) empty() bool { return e.ta.LineCount() == 1 && e.ta.Value() == "" }

func (e *editor) setValue(s string) {
	if tooLarge(s) {
		s = e.placeholder(s)
	}
	e.ta.SetValue(s)
	e.histIdx = len(e.history)
}

// tooLarge reports whether a text should be collapsed into a placeholder.
func tooLarge(s string) bool {
	return len(s) > collapseBytes || strings.Count(s, "\n") >= collapseLines
}

// placeholder records a large text and returns the token that stands for
// it in the editor.
func (e *editor) placeholder(text string) string {
	if e.pastes == nil {
		e.pastes = map[string]string{}
	}
	e.pasteSeq++
	ph := fmt.Sprintf("[paste #%d · %s lines · %s]", e.pasteSeq,
		humanInt(strings.Count(text, "\n")+1), truncate.FormatBytes(int64(len(text))))
	e.pastes[ph] = text
	return ph
}

// expand replaces the placeholders in text by the texts they stand for.
// A placeholder the user deleted sends nothing.
func (e *editor) expand(text string) string {
	for ph, full := range e.pastes {
		if strings.Contains(text, ph) {
			text = strings.ReplaceAll(text, ph, full)
		}
	}
	return text
}

// humanInt writes n with thousands separators.
func humanInt(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (e *editor) reset() {
	e.ta.Reset()
	e.histIdx = len(e.history)
	e.draft = ""
	e.sel = 0
	e.search = historySearch{}
	e.vi.normal, e.vi.pending = false, ""
}

// remember adds a sent text to the history.
func (e *editor) remember(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if n := len(e.history); n == 0 || e.history[n-1] != text {
		e.history = append(e.history, text)
		if len(e.history) > maxHistory {
			e.history = e.history[len(e.history)-maxHistory:]
		}
	}
	e.histIdx = len(e.history)
}

// atFirstLine reports whether the cursor is on the first visual row.
func (e *editor) atFirstLine() bool {
	return e.ta.Line() == 0 && e.ta.LineInfo().RowOffset == 0
}

// atLastLine reports whether the cursor is on the last visual row.
func (e *editor) atLastLine() bool {
	li := e.ta.LineInfo()
	return e.ta.Line() == e.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// historyPrev shows the previous history entry; false when there is none.
func (e *editor) historyPrev() bool {
	if e.histIdx == 0 || len(e.history) == 0 {
		return false
	}
	if e.histIdx == len(e.history) {
		e.draft = e.ta.Value()
	}
	e.histIdx--
	e.ta.SetValue(e.history[e.histIdx])
	e.ta.MoveToBegin()
	return true
}

// historyNext shows the next history entry, then the draft.
func (e *editor) historyNext() bool {
	if e.histIdx >= len(e.history) {
		return false
	}
	e.histIdx++
	if e.histIdx == len(e.history) {
		e.ta.SetValue(e.draft)
	} else {
		e.ta.SetValue(e.history[e.histIdx])
	}
	return true
}

func (e *editor) update(msg tea.Msg) tea.Cmd {
	if p, ok := msg.(tea.PasteMsg); ok && tooLarge(p.Content) {
		e.ta.InsertString(e.placeholder(p.Content))
		return nil
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

func (e *editor) view() string {
	if e.search.active {
		return e.search.line(e.dim) + "\n" + e.ta.View()
	}
	return e.ta.View()
}

// completions are the commands the popup offers for the current value:
// it shows while the value is a slash and the start of a command name.
func (e *editor) completions() []command {
	v := e.ta.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") || v == e.dismissed {
		return nil
	}
	out := matchCommands(v[1:])
	for _, c := range e.custom {
		if strings.HasPrefix(c.name, strings.ToLower(v[1:])) {
			out = append(out, c)
		}
	}
	return out
}

// rememberSent puts what the user wrote in a message into the editor's
// history.
func (ed *editor) rememberSent(e *message.Entry) {
	if e.Message.Role != message.RoleUser || e.Message.Synthetic {
		return
	}
	for _, p := range e.Parts {
		if p.Type == message.PartText {
			ed.remember(p.Text)
		}
	}
}
