package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func TestTypingWhileBusyQueuesAndShowsBadge(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{
		pt.Reply(pt.TextChunk("working on it"), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("done with both"),
	})
	h.typeText("first")
	h.key("enter")
	h.waitFor("the reply to stream", func(m *Model) bool { return m.busy && strings.Contains(screenOf(m), "working on it") })
	if !strings.Contains(h.screen(), "esc interrupts") {
		t.Errorf("no interrupt hint while busy:\n%s", h.screen())
	}
	h.typeText("second")
	h.key("enter")
	h.waitScreen("1 steering")
	close(release)
	h.waitFor("both turns", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	h.waitScreen("done with both")
	if strings.Contains(h.screen(), "queued") {
		t.Errorf("badge still shown after injection:\n%s", h.screen())
	}
	last := h.srv.Requests()[1].Chat.Messages
	if got := last[len(last)-1]; got.Role != "user" || got.Content != "second" {
		t.Errorf("second request ends with %s %q, want the queued message", got.Role, got.Content)
	}
}

func TestEscCancelsAndHandsQueueBack(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("partial answer"), pt.Block(release))})
	h.typeText("go")
	h.key("enter")
	h.waitScreen("partial answer")
	h.typeText("later please")
	h.key("enter")
	h.waitFor("the queue", func(m *Model) bool { return len(m.queue) == 1 })
	h.typeText("draft")
	h.key("esc")
	h.waitFor("the cancel", func(m *Model) bool { return idle(m) && m.editor.value() != "draft" })
	if got := h.m.editor.value(); got != "later please\n\ndraft" {
		t.Errorf("editor = %q, want the queued message then the draft", got)
	}
	h.waitScreen("interrupted")
	if !strings.Contains(h.screen(), "partial answer") {
		t.Errorf("streamed text lost on cancel:\n%s", h.screen())
	}
	if q, _ := h.m.runner.Queue(context.Background()); len(q) != 0 {
		t.Errorf("queue not emptied: %v", q)
	}
}

func TestUpOnEmptyEditorPullsBackQueued(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("busy"), pt.Block(release))})
	h.typeText("start")
	h.key("enter")
	h.waitFor("busy", func(m *Model) bool { return m.busy })
	h.typeText("oops, wrong")
	h.key("enter")
	h.waitFor("the queue", func(m *Model) bool { return len(m.queue) == 1 })
	h.key("up")
	h.waitFor("the pull back", func(m *Model) bool { return m.editor.value() == "oops, wrong" && len(m.queue) == 0 })
}

func TestQueuePanelEditsDeletesAndReorders(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("busy"), pt.Block(release))})
	h.typeText("start")
	h.key("enter")
	h.waitFor("busy", func(m *Model) bool { return m.busy })
	for _, s := range []string{"aaa", "bbb", "ccc"} {
		h.typeText(s)
		h.key("enter")
	}
	h.waitFor("three queued", func(m *Model) bool { return len(m.queue) == 3 })
	h.key("ctrl+q")
	h.waitScreen("Queue (3)")
	texts := func() string {
		var out []string
		for _, q := range h.m.queue {
			out = append(out, q.Text)
		}
		return strings.Join(out, ",")
	}
	// Move the first down, delete the new first, edit the last.
	h.send(tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModShift})
	h.waitFor("the move", func(m *Model) bool { return texts() == "bbb,aaa,ccc" })
	h.key("up")
	h.key("d")
	h.waitFor("the delete", func(m *Model) bool { return texts() == "aaa,ccc" })
	h.key("down")
	h.key("enter")
	h.typeText("!")
	h.key("enter")
	h.waitFor("the edit", func(m *Model) bool { return texts() == "aaa,ccc!" })
	h.key("esc")
	if h.m.drawer != nil {
		t.Errorf("esc did not close the panel")
	}
}
