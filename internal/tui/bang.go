package tui

// !command (issue 17): a message that starts with "!" runs as a shell
// command in the session's directory, with no model call, through the
// bash tool (loop.Runner.RunShell). The user typed it, so no permission
// is asked. Its output goes to the model with the next message.
//
// While it runs, a card shows its last lines live (bash's progress, the
// same lines a running tool card shows, stripped of escape sequences);
// Esc stops it (its whole process group); closing the chat — a quit or a
// closed terminal (SIGHUP) — stops it too, and Close returns only once it
// has ended. When it ends, the live card gives way to the stored
// message's card, which holds what it printed, stopped or not.

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// bangStopWait bounds how long closing the chat waits for a stopped
// !command (bash's own grace before SIGKILL is shorter).
const bangStopWait = 5 * time.Second

// bangCommand reports whether text is a !command, and the command.
func bangCommand(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "!") || strings.TrimSpace(t[1:]) == "" {
		return "", false
	}
	return strings.TrimSpace(t[1:]), true
}

// bangDoneMsg: a !command finished.
type bangDoneMsg struct {
	run     *bangRun
	command string
	err     error
}

// bangProgressMsg: a running !command printed; lines are its last ones.
type bangProgressMsg struct {
	run   *bangRun
	lines string
}

// bangRun is the !command that runs: its live card and how to stop it.
type bangRun struct {
	item   *toolItem
	cancel context.CancelFunc
	// progress holds the newest lines not yet shown (older ones are
	// dropped: only the last lines matter); done closes when RunShell
	// has returned.
	progress chan string
	done     chan struct{}
}

func newBangRun(command string, cancel context.CancelFunc) *bangRun {
	input, _ := json.Marshal(map[string]string{"command": command})
	return &bangRun{
		item: &toolItem{state: message.ToolState{Name: "bash", Status: message.ToolRunning, Input: string(input),
			Title: "! " + command, StartedAt: time.Now()}},
		cancel:   cancel,
		progress: make(chan string, 1),
		done:     make(chan struct{}),
	}
}

// report hands the newest lines to the chat without blocking the command.
func (b *bangRun) report(lines string) {
	for {
		select {
		case b.progress <- lines:
			return
		default:
		}
		select {
		case <-b.progress: // drop the lines not shown yet
		default:
		}
	}
}

// wait is the command that delivers the next lines, or nothing once the
// command has ended.
func (b *bangRun) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case lines := <-b.progress:
			return bangProgressMsg{run: b, lines: lines}
		case <-b.done:
			return nil
		}
	}
}

// show puts lines on the live card.
func (b *bangRun) show(lines string) {
	b.item.state.Progress = lines
	b.item.ver++
}

// stop stops the command and waits, at most d, for it to end.
func (b *bangRun) stop(d time.Duration) {
	b.cancel()
	select {
	case <-b.done:
	case <-time.After(d):
	}
}

// runBang runs a !command.
func (m *Model) runBang(command string) tea.Cmd {
	if m.runner == nil {
		m.editor.setValue("!" + command)
		return m.setFlash("open a session first (send a message or /new): your command stays in the editor", 3*time.Second)
	}
	if m.busy || m.bang != nil {
		m.editor.setValue("!" + command)
		return m.setFlash("the agent is busy: run the command when the turn ends (esc interrupts)", 3*time.Second)
	}
	r := m.runner
	ctx, cancel := context.WithCancel(context.Background())
	run := newBangRun(command, cancel)
	m.bang = run
	m.chat.add(run.item)
	return tea.Batch(func() tea.Msg {
		defer close(run.done)
		defer cancel()
		_, err := r.RunShell(ctx, command, run.report)
		return bangDoneMsg{run: run, command: command, err: err}
	}, run.wait())
}

// handleBang applies a !command's progress or end to the chat.
func handleBang(m *Model, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case bangProgressMsg:
		if m.bang == msg.run {
			msg.run.show(msg.lines)
		}
		return msg.run.wait()
	case bangDoneMsg:
		if m.bang == msg.run {
			m.chat.remove(msg.run.item)
			m.bang = nil
		}
		if msg.err != nil {
			m.chat.notice(noticeError, msg.err.Error(), "")
		}
	}
	return nil
}
