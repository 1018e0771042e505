// Command bareenter is the floor the chat's Enter → request is measured
// against (issue 36): a Bubble Tea v2 program, built with this module's
// own dependencies, that echoes what is typed and, on Enter, POSTs it as a
// streamed chat completion with go-openai (as bench/bare does) and shows
// the answer. No history, no storage, no prompt: the terminal's keys
// through Bubble Tea, a command, and the request.
//
// It reads OPENAI_BASE_URL, OPENAI_API_KEY and AGENT_MODEL, as the agent
// does. cmd/agent's BenchmarkEnterVsBare runs it and the chat in tmux,
// interleaved, and times each from `tmux send-keys Enter` until the
// server has read the request's body.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/sashabaranov/go-openai"
)

// Ready is drawn once the program takes keys; the benchmark waits for it.
const Ready = "bare enter ready"

type answerMsg struct {
	text string
	err  error
}

type model struct {
	client *openai.Client
	input  string
	answer string
}

func (model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c":
			return m, tea.Quit
		case "enter":
			text := m.input
			m.input = ""
			return m, m.send(text)
		case "backspace":
			if m.input != "" {
				m.input = m.input[:len(m.input)-1]
			}
		default:
			m.input += msg.Text
		}
	case answerMsg:
		m.answer = msg.text
		if msg.err != nil {
			m.answer = "error: " + msg.err.Error()
		}
	}
	return m, nil
}

// send streams the answer to text in a command, off the event loop.
func (m model) send(text string) tea.Cmd {
	return func() tea.Msg {
		stream, err := m.client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
			Model:    os.Getenv("AGENT_MODEL"),
			Stream:   true,
			Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}},
		})
		if err != nil {
			return answerMsg{err: err}
		}
		defer stream.Close()
		var b strings.Builder
		for {
			resp, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return answerMsg{text: b.String()}
			}
			if err != nil {
				return answerMsg{err: err}
			}
			for _, c := range resp.Choices {
				b.WriteString(c.Delta.Content)
			}
		}
	}
}

func (m model) View() tea.View {
	v := tea.NewView(Ready + "\n" + m.answer + "\n> " + m.input)
	v.AltScreen = true // as the chat does
	return v
}

func main() {
	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	cfg.BaseURL = os.Getenv("OPENAI_BASE_URL")
	if _, err := tea.NewProgram(model{client: openai.NewClientWithConfig(cfg)}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "bareenter:", err)
		os.Exit(1)
	}
}
