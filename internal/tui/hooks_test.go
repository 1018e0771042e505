package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

func TestHookNotes(t *testing.T) {
	m := offlineModel(t)
	feed(m,
		message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "PostToolUse", Command: "true"}}, // said nothing
		message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "PreToolUse", Command: "~/bin/guard", Blocked: true, ExitCode: 2,
			Output: "no rm -rf here\x1b"}},
		message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "Stop", Command: "make test", TimedOut: true, ExitCode: -1,
			Error: "timed out after 1m0s; killed"}},
	)
	screen := screenOf(m)
	for _, want := range []string{"· PreToolUse hook ~/bin/guard blocked: no rm -rf here", "· Stop hook make test: timed out after 1m0s; killed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "PostToolUse") || strings.Contains(screen, "here\x1b") {
		t.Errorf("screen:\n%s", screen)
	}
}

func TestHookNotesWaitForTheOpen(t *testing.T) {
	m := offlineModel(t)
	m.opening = true
	feed(m, message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "SessionStart", Command: "cat TODO", Output: "open issues: 3"}})
	if notes := hookNotices(m); len(notes) != 0 {
		t.Fatalf("shown before the session opened: %q", notes)
	}
	m.opening = false
	m.loadHistory(nil) // what handleOpened does: the view is rebuilt
	m.hooks.show(m.chat)
	if notes := hookNotices(m); len(notes) != 1 || notes[0] != "SessionStart hook cat TODO: open issues: 3" {
		t.Errorf("notes = %q", notes)
	}
}

// hookNotices are the texts of the chat's hook notes.
func hookNotices(m *Model) []string {
	var out []string
	for _, it := range m.chat.items {
		if n, ok := it.(*noticeItem); ok && strings.Contains(n.text, " hook ") {
			out = append(out, n.text)
		}
	}
	return out
}
