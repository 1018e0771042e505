package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// storeSession writes a session of the harness's directory whose one
// tool call printed output, pruned when pruned is set.
func storeSession(t *testing.T, h *harness, title, output string, pruned bool) *message.Session {
	t.Helper()
	ctx := context.Background()
	sess := &message.Session{Title: title, Model: "gpt-4.1", Dir: h.dir}
	if err := h.store.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	msg := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, Model: "gpt-4.1"}
	if err := h.store.CreateMessage(ctx, msg); err != nil {
		t.Fatal(err)
	}
	tool := &message.ToolState{CallID: "c1", Name: "bash", Status: message.ToolCompleted, Input: `{"command":"make"}`, Output: output}
	if pruned {
		tool.CompactedAt = time.Now()
	}
	if err := h.store.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: msg.ID, Type: message.PartTool, Tool: tool}); err != nil {
		t.Fatal(err)
	}
	return sess
}

// pickerOf is the open sessions picker.
func pickerOf(t *testing.T, m *Model) *pickerDrawer {
	t.Helper()
	p, ok := m.drawer.(*pickerDrawer)
	if !ok || p.models || p.choose == nil {
		t.Fatalf("the sessions picker is not open: %T", m.drawer)
	}
	return p
}

// TestSessionsPickerSearchesHistory: typing in /sessions filters the list
// to the sessions whose history holds the words — here only in one
// session's pruned tool output — with a snippet of the match; the search
// runs after the typing, not in it; empty text lists every session again.
func TestSessionsPickerSearchesHistory(t *testing.T) {
	h := newHarness(t, nil)
	storeSession(t, h, "alpha refactor", "build ok: the frobnicated widget passed", true)
	storeSession(t, h, "beta refactor", "build ok: nothing special here", false)

	h.typeText("/sessions")
	h.key("enter")
	h.waitScreen("beta refactor")
	if !strings.Contains(h.screen(), "alpha refactor") {
		t.Fatalf("the picker does not list both sessions:\n%s", h.screen())
	}

	h.typeText("frobnicated widget")
	if p := pickerOf(t, h.m); p.Searched() != "" {
		t.Fatalf("the search ran inside Update (answer for %q before any command ran)", p.Searched())
	}
	h.waitFor("the search answer", func(m *Model) bool { return pickerOf(t, m).Searched() == "frobnicated widget" })
	s := h.screen()
	if !strings.Contains(s, "alpha refactor") || strings.Contains(s, "beta refactor") {
		t.Errorf("the filtered list should hold alpha only:\n%s", s)
	}
	if !strings.Contains(s, "[bash, pruned]") || !strings.Contains(s, "frobnicated widget passed") {
		t.Errorf("no snippet of the pruned output:\n%s", s)
	}

	for range len("frobnicated widget") {
		h.key("backspace")
	}
	s = h.screen()
	if !strings.Contains(s, "alpha refactor") || !strings.Contains(s, "beta refactor") || strings.Contains(s, "pruned") {
		t.Errorf("empty text should list every session, without snippets:\n%s", s)
	}
}
