package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// offlineModel is a model without a session, fed events by hand.
func offlineModel(t *testing.T) *Model {
	t.Helper()
	m := New(Options{})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m
}

func feed(m *Model, evs ...message.Event) {
	var items inboxMsg
	for _, ev := range evs {
		items = append(items, loopEvent{gen: m.gen, ev: ev})
	}
	m.Update(items)
}

func TestEventsRender(t *testing.T) {
	now := time.Now()
	tool := func(st message.ToolState) message.Event {
		return message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "t1", MessageID: "a1", Type: message.PartTool, Tool: &st}}
	}
	tests := []struct {
		name string
		evs  []message.Event
		want []string
		not  []string
	}{
		{"prune marker", []message.Event{{Type: message.EventPruned, Prune: &message.PruneInfo{Parts: 3, TokensSaved: 24000, TokensBefore: 85200, TokensAfter: 61000}}},
			[]string{"pruned 3 old tool outputs: 85.2K → 61K tokens"}, nil},
		{"automatic compaction", []message.Event{{Type: message.EventCompacted, Compaction: &message.CompactionState{Auto: true, Reason: "overflow", TokensBefore: 180000, TokensAfter: 32000}}},
			[]string{"context compacted automatically (overflow): 180K → 32K tokens"}, nil},
		{"rejected compaction", []message.Event{{Type: message.EventCompacted, Compaction: &message.CompactionState{Rejected: true, TokensBefore: 1000, TokensAfter: 1200}}},
			[]string{"compaction rejected", "1K → 1.2K"}, nil},
		{"retry countdown", []message.Event{{Type: message.EventStatus, Busy: true}, {Type: message.EventRetrying, Retry: &message.RetryInfo{Attempt: 2, Delay: 5 * time.Second, Reason: "rate limited"}}},
			[]string{"retrying in 5s (attempt 2): rate limited", "retry in 5s"}, nil},
		{"error with what to do", []message.Event{{Type: message.EventError, Err: "chat completion: model not found (HTTP 404)"}},
			[]string{"✗ chat completion: model not found", "/model NAME"}, nil},
		{"reasoning streams collapsed", []message.Event{
			{Type: message.EventPartDelta, Part: &message.Part{ID: "r1", MessageID: "a1", Type: message.PartReasoning}, Delta: "first thought\nsecond thought\nthird thought"}},
			[]string{"∴ thinking… (6 words)", "third thought"}, []string{"first thought"}},
		{"pending tool", []message.Event{tool(message.ToolState{Name: "bash", Status: message.ToolPending})},
			[]string{"○ bash", "waiting"}, nil},
		{"running tool shows progress", []message.Event{tool(message.ToolState{Name: "bash", Status: message.ToolRunning, Input: `{"command":"make test"}`,
			Progress: "1\n2\n3\n4\n5\n6\n", StartedAt: now})},
			[]string{"◐ bash", "running", "    6"}, []string{"    1\n"}},
		{"edit diff", []message.Event{tool(message.ToolState{Name: "edit", Status: message.ToolCompleted, Title: "edit main.go", StartedAt: now, EndedAt: now.Add(1200 * time.Millisecond),
			Metadata: map[string]any{"diff": "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old line\n+new line\n"}})},
			[]string{"✓ edit", "main.go", "1.2s", "@@ -1 +1 @@", "1   - old line", "  1 + new line"}, []string{"+++ b/main.go"}},
		{"pruned output", []message.Event{tool(message.ToolState{Name: "read", Status: message.ToolCompleted, Title: "read x.go", Output: "content", CompactedAt: now})},
			[]string{"✓ read", "pruned"}, nil},
		{"synthetic continue", []message.Event{
			{Type: message.EventMessageUpdated, Message: &message.Message{ID: "u1", Role: message.RoleUser, Synthetic: true}},
			{Type: message.EventPartUpdated, Part: &message.Part{ID: "p1", MessageID: "u1", Type: message.PartText, Text: "Continue with the task."}}},
			[]string{"↻ Continue with the task."}, []string{"▌ Continue"}},
		{"user message", []message.Event{
			{Type: message.EventMessageUpdated, Message: &message.Message{ID: "u2", Role: message.RoleUser}},
			{Type: message.EventPartUpdated, Part: &message.Part{ID: "p2", MessageID: "u2", Type: message.PartText, Text: "fix the bug"}}},
			[]string{"▌ fix the bug"}, nil},
		{"queue badge", []message.Event{{Type: message.EventQueueChanged, Queue: []message.QueuedMessage{{ID: "q1", Text: "a"}, {ID: "q2", Text: "b", Kind: message.KindQueue}}}},
			[]string{"1 steering · 1 queued"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := offlineModel(t)
			feed(m, tt.evs...)
			s := screenOf(m)
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("screen lacks %q:\n%s", w, s)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(s, w) {
					t.Errorf("screen shows %q:\n%s", w, s)
				}
			}
		})
	}
}

func TestEventsOfAnOldSessionAreDropped(t *testing.T) {
	m := offlineModel(t)
	m.Update(inboxMsg{loopEvent{gen: m.gen + 1, ev: message.Event{Type: message.EventError, Err: "from elsewhere"}}})
	if strings.Contains(screenOf(m), "from elsewhere") {
		t.Error("an event of another generation was shown")
	}
}

func TestCloseBeforeTheSessionOpens(t *testing.T) {
	m := New(Options{})
	open := m.Init() // never run, as when the program stops at once
	done := make(chan struct{})
	go func() { m.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on an open that never ran")
	}
	_ = open
}
