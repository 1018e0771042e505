package tui

// Leaving inline mode: Bubble Tea draws the model's view once more after
// the program is told to quit, and leaves that frame on the terminal's
// main screen. The editor, its rule and the status line drawn there would
// stay in the scrollback above the shell's next prompt. exitGuard notes
// the quit (a program filter sees tea.QuitMsg before the program acts on
// it) and gives that last draw a frame without them: what the live region
// holds of the conversation, so nothing the user has not seen printed is
// lost, over blank rows that keep the frame's height (a shorter frame
// would leave the old one's top rows on the screen).

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// exitGuard is the program's model: the chat, with its last frame in
// inline mode drawn by exitFrame.
// It also keeps the frames' widths for the clear after a resize
// (inlineresize.go).
// And it holds inline mode's prints until the first frame is drawn
// (inlinefirst.go): watch is the program's output, nil when the caller
// gave its own.
type exitGuard struct {
	*Model
	quitting bool
	rewrap   rewrap
	watch    *frameWatch
}

func (g *exitGuard) Init() tea.Cmd {
	cmd := g.Model.Init()
	if !g.inline {
		return cmd
	}
	g.printing = true // released by firstFrameMsg
	var drawn chan struct{}
	if g.watch != nil {
		drawn = g.watch.drawn
	}
	return tea.Batch(cmd, firstFrameWait(drawn))
}

func (g *exitGuard) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var clear tea.Cmd
	if size, ok := msg.(tea.WindowSizeMsg); ok && g.inline {
		clear = g.rewrap.resized(size.Width)
	}
	if _, ok := msg.(firstFrameMsg); ok {
		msg = printedMsg{} // the print held since the start
	}
	_, cmd := g.Model.Update(msg)
	return g, tea.Batch(clear, cmd)
}

func (g *exitGuard) View() tea.View {
	v := g.Model.View()
	if g.quitting && g.inline {
		v.Content = exitFrame(v.Content, g.chat.visible)
	}
	if g.inline {
		g.rewrap.drawn(v.Content)
		if g.watch != nil && g.sized {
			g.watch.arm()
		}
	}
	return v
}

// filter is the program's message filter: it notes the quit.
func (g *exitGuard) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.QuitMsg); ok {
		g.quitting = true
	}
	return msg
}

// exitFrame is the last frame of inline mode in place of frame: the
// conversation's live lines at its bottom, blank rows above them, as tall
// as frame.
func exitFrame(frame string, visible []string) string {
	rows := strings.Count(frame, "\n") + 1
	var b strings.Builder
	live := visible[max(0, len(visible)-rows):]
	for range rows - len(live) {
		b.WriteByte('\n')
	}
	for i, l := range live {
		b.WriteByte(' ')
		b.WriteString(l)
		if i < len(live)-1 {
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
