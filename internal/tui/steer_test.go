package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

func TestQueueBadge(t *testing.T) {
	s := message.QueuedMessage{Kind: message.KindSteer}
	q := message.QueuedMessage{Kind: message.KindQueue}
	tests := []struct {
		queue []message.QueuedMessage
		want  string
	}{
		{[]message.QueuedMessage{s}, "1 steering"},
		{[]message.QueuedMessage{q, q}, "2 queued"},
		{[]message.QueuedMessage{q, s, q}, "1 steering · 2 queued"},
		{[]message.QueuedMessage{{}}, "1 steering"},
	}
	for _, tt := range tests {
		if got := queueBadge(tt.queue); got != tt.want {
			t.Errorf("badge %q, want %q", got, tt.want)
		}
	}
}

// TestEnterSteersTabQueues: while the agent works, Enter steers the running
// turn and Tab queues for after it; the badge counts both; the panel marks
// them and flips one.
func TestEnterSteersTabQueues(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "bash", `{"command":"echo hi"}`, 1),
			pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("steered"),
		pt.Text("the docs turn is done"),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"bash": tools.ModeAllow} })
	h.typeText("start")
	h.key("enter")
	h.waitFor("busy", func(m *Model) bool { return m.busy && len(h.srv.Requests()) == 1 })
	h.typeText("use tabs")
	h.key("enter")
	h.typeText("then docs")
	h.key("tab")
	h.typeText("then tests")
	h.key("tab")
	h.waitScreen("1 steering · 2 queued")
	h.key("ctrl+q")
	h.waitScreen("2. queue then docs")
	h.key("down")
	h.key("down")
	h.key("tab") // "then tests" now steers
	h.waitScreen("2 steering · 1 queued")
	h.key("esc")
	close(release)
	h.waitFor("three turns", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 3 })
	second := h.srv.Requests()[1].Chat.Messages
	if got := second[len(second)-1].Content; got != "First: use tabs\n\nAlso: then tests" {
		t.Errorf("the turn's second step ends with %q, want both steering messages", got)
	}
	third := h.srv.Requests()[2].Chat.Messages
	if got := third[len(third)-1].Content; got != "then docs" || third[len(third)-2].Content != "steered" {
		t.Errorf("the next turn starts with %q after %q", got, third[len(third)-2].Content)
	}
	if s := h.screen(); strings.Contains(s, "steering") || strings.Contains(s, "queued") || len(h.m.queue) > 0 {
		t.Errorf("badge still shown:\n%s", s)
	}
}
