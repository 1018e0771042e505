package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
)

// TestCheckpointLineShowsProgressAndSkips drives the chat with the loop's
// progress events of a slow checkpoint: the line shows the figures and
// follows them, ctrl+s calls Skip, and the Finished event takes it away.
func TestCheckpointLineShowsProgressAndSkips(t *testing.T) {
	h := newHarness(t, nil)
	skipped := make(chan struct{})
	var once sync.Once
	skip := func() { once.Do(func() { close(skipped) }) }
	event := func(ev message.Event) { h.send(inboxMsg{loopEvent{gen: h.m.gen, ev: ev}}) }
	progress := func(done, total int, finished bool) {
		event(message.Event{Type: message.EventCheckpointProgress, Checkpoint: &message.CheckpointProgress{
			Done: done, Total: total, Elapsed: time.Second, Finished: finished, Skip: skip}})
	}
	ctrlS := tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}

	event(message.Event{Type: message.EventStatus, Busy: true})
	progress(3200, 13018, false)
	if s := h.screen(); !strings.Contains(s, "taking a checkpoint… 3,200/13,018 files") || !strings.Contains(s, "ctrl+s skips") {
		t.Fatalf("no progress line with the figures and the key:\n%s", s)
	}
	progress(6400, 13018, false)
	if s := h.screen(); !strings.Contains(s, "6,400/13,018 files") {
		t.Fatalf("the line did not follow the progress:\n%s", s)
	}
	h.send(ctrlS)
	select {
	case <-skipped:
	case <-time.After(5 * time.Second):
		t.Fatal("ctrl+s did not call Skip")
	}
	if s := h.screen(); !strings.Contains(s, skippedCheckpointText) {
		t.Fatalf("the line does not say the checkpoint is skipped:\n%s", s)
	}
	if strings.Contains(h.m.editor.value(), "s") {
		t.Fatalf("the skip key reached the editor: %q", h.m.editor.value())
	}
	progress(6400, 13018, true)
	if s := h.screen(); strings.Contains(s, "checkpoint") {
		t.Fatalf("the line stayed after the checkpoint finished:\n%s", s)
	}
	// No checkpoint under way: the key is not taken, nothing is skipped.
	h.send(ctrlS)
	event(message.Event{Type: message.EventStatus, Busy: false})
}

// TestCheckpointLineGoesWithTheTurn: a turn that ends without a Finished
// event (cancelled) leaves no stale line, and a new checkpoint's events
// start a fresh one.
func TestCheckpointLineGoesWithTheTurn(t *testing.T) {
	m := offlineModel(t)
	feed(m, message.Event{Type: message.EventStatus, Busy: true},
		message.Event{Type: message.EventCheckpointProgress, Checkpoint: &message.CheckpointProgress{Done: 1, Total: 20000, Skip: func() {}}})
	if !strings.Contains(screenOf(m), "1/20,000 files") {
		t.Fatalf("no progress line:\n%s", screenOf(m))
	}
	feed(m, message.Event{Type: message.EventStatus, Busy: false})
	feed(m, message.Event{Type: message.EventStatus, Busy: true})
	if strings.Contains(screenOf(m), "checkpoint") {
		t.Fatalf("a stale checkpoint line after the turn ended:\n%s", screenOf(m))
	}
}
