// Command barefirstframe is the floor the chat's first frame is measured
// against: a Bubble Tea v2 program, built with this module's own
// dependencies, that draws one line and waits for q or ctrl+c.
// BenchmarkFirstFrame (cmd/agent) starts it and the agent in tmux,
// interleaved, and reports the ratio of their first frames.
package main

import (
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
)

// Line is what the program draws; the benchmark waits for it.
const Line = "bare first frame"

type model struct{}

func (model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && (k.String() == "q" || k.String() == "ctrl+c") {
		return m, tea.Quit
	}
	return m, nil
}

func (model) View() tea.View {
	v := tea.NewView(Line)
	v.AltScreen = true // as the chat does
	return v
}

func main() {
	if _, err := tea.NewProgram(model{}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "barefirstframe:", err)
		os.Exit(1)
	}
}
