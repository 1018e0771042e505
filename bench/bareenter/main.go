// Command bareenter is the floor the chat's Enter → request is measured
// against (issue 36): a Bubble Tea v2 program, built with this module's
// own dependencies, that echoes what is typed and, on Enter, POSTs it as a
// streamed chat completion with go-openai (as bench/bare does) and shows
// the answer. No history, no storage, no prompt: the terminal's keys
// through Bubble Tea, a command, and the request.
//
// It reads OPENAI_BASE_URL, OPENAI_API_KEY and AGENT_MODEL, as the agent
// does. With BAREENTER_BODY naming a file, it is the floor of a resumed
// chat instead: the file is a whole request body, read at start, in which
// BodyText stands for what is typed; on Enter it POSTs that body with the
// typed text (escaped as JSON) in its place — a program that had the
// history's request ready before the first key, and has only the new
// message to put in. cmd/agent's BenchmarkEnterVsBare runs it and the chat in tmux,
// interleaved, and times each from `tmux send-keys Enter` until the
// server has read the request's body.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/sashabaranov/go-openai"
)

// BodyText is where, in BAREENTER_BODY's body, the typed text goes.
const BodyText = "BAREENTER_TEXT"

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
	// head and tail: BAREENTER_BODY's body around BodyText (nil: off).
	head, tail []byte
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
	if m.head != nil {
		return m.sendBody(text)
	}
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

// sendBody POSTs the prepared body with text in its place and reads the
// streamed answer's content.
func (m model) sendBody(text string) tea.Cmd {
	return func() tea.Msg {
		quoted, _ := json.Marshal(text)
		quoted = quoted[1 : len(quoted)-1]
		// The prepared bytes as they are, not copied into one body.
		body := io.MultiReader(bytes.NewReader(m.head), bytes.NewReader(quoted), bytes.NewReader(m.tail))
		req, err := http.NewRequest(http.MethodPost, os.Getenv("OPENAI_BASE_URL")+"/chat/completions", body)
		if err != nil {
			return answerMsg{err: err}
		}
		req.ContentLength = int64(len(m.head) + len(quoted) + len(m.tail))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return answerMsg{err: err}
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var chunk openai.ChatCompletionStreamResponse
			if json.Unmarshal([]byte(data), &chunk) == nil {
				for _, c := range chunk.Choices {
					b.WriteString(c.Delta.Content)
				}
			}
		}
		return answerMsg{text: b.String(), err: sc.Err()}
	}
}

func main() {
	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	cfg.BaseURL = os.Getenv("OPENAI_BASE_URL")
	m := model{client: openai.NewClientWithConfig(cfg)}
	if path := os.Getenv("BAREENTER_BODY"); path != "" {
		body, err := os.ReadFile(path)
		head, tail, ok := bytes.Cut(body, []byte(BodyText))
		if err != nil || !ok {
			fmt.Fprintln(os.Stderr, "bareenter: BAREENTER_BODY: no", BodyText, "in it:", err)
			os.Exit(1)
		}
		m.head, m.tail = head, tail
	}
	if _, err := tea.NewProgram(m).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "bareenter:", err)
		os.Exit(1)
	}
}
