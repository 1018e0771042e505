package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
)

// TestAutomaticCompactionIsVisible: while it runs the status line says
// what it does; after, one line stands for it, the summary hidden
// (issue 14.3).
func TestAutomaticCompactionIsVisible(t *testing.T) {
	m := offlineModel(t)
	feed(m, message.Event{Type: message.EventStatus, Busy: true},
		message.Event{Type: message.EventCompacting, Summarising: 7, Compaction: &message.CompactionState{Auto: true, Reason: "threshold", TokensBefore: 120000}})
	if line := ansi.Strip(m.statusLine()); !strings.Contains(line, "compacting · summarising 7 messages · 0s") {
		t.Errorf("status line while compacting = %q", line)
	}
	summary := &message.Message{ID: "s1", Role: message.RoleAssistant, Summary: true, Model: "small-model"}
	body := compact.ComposeSummary("## Goal\nship the parser", []string{"please keep the tests green"})
	feed(m,
		message.Event{Type: message.EventMessageUpdated, Message: summary},
		message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "p1", MessageID: "s1", Type: message.PartText, Text: body}},
		message.Event{Type: message.EventCompacted, Compaction: &message.CompactionState{Auto: true, Reason: "threshold", TokensBefore: 120000, TokensAfter: 9000, SummaryID: "s1"}})
	s := screenOf(m)
	if strings.Contains(ansi.Strip(m.statusLine()), "compacting") {
		t.Errorf("still compacting: %q", ansi.Strip(m.statusLine()))
	}
	if !strings.Contains(s, "≡ context compacted automatically (threshold): 120K → 9K tokens · small-model") {
		t.Errorf("no one-line card:\n%s", s)
	}
	for _, hidden := range []string{"ship the parser", "user_message", "keep the tests green"} {
		if strings.Contains(s, hidden) {
			t.Errorf("collapsed card shows %q:\n%s", hidden, s)
		}
	}
	m.Update(keyPress("ctrl+o"))
	s = screenOf(m)
	if !strings.Contains(s, "ship the parser") || !strings.Contains(s, "keep the tests green") || strings.Contains(s, "user_message") {
		t.Errorf("expanded summary:\n%s", s)
	}
}

// TestCtrlOExpandsTheFocusedCardOnly (issue 14.12): Ctrl+O expands the
// newest card on screen, Alt+↑ moves the focus to an older one, Alt+O
// expands them all.
func TestCtrlOExpandsTheFocusedCardOnly(t *testing.T) {
	m := offlineModel(t)
	now := time.Now()
	out := func(tag string) string {
		var b strings.Builder
		for i := 1; i <= 8; i++ {
			b.WriteString(tag + "-line-" + string(rune('0'+i)) + "\n")
		}
		return b.String()
	}
	for _, tag := range []string{"older", "newer"} {
		st := message.ToolState{Name: "bash", Status: message.ToolCompleted, Title: tag, Output: out(tag), StartedAt: now, EndedAt: now}
		feed(m, message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: tag, MessageID: "a", Type: message.PartTool, Tool: &st}})
	}
	m.Update(keyPress("ctrl+o"))
	s := screenOf(m)
	if !strings.Contains(s, "newer-line-8") || strings.Contains(s, "older-line-8") {
		t.Fatalf("ctrl+o should expand the newest card only:\n%s", s)
	}
	m.Update(keyPress("ctrl+o"))
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt})
	m.Update(keyPress("ctrl+o"))
	s = screenOf(m)
	if !strings.Contains(s, "older-line-8") || strings.Contains(s, "newer-line-8") {
		t.Fatalf("after alt+↑, ctrl+o should expand the older card:\n%s", s)
	}
	m.Update(keyPress("ctrl+o"))
	m.Update(keyPress("alt+o"))
	s = screenOf(m)
	if !strings.Contains(s, "older-line-8") || !strings.Contains(s, "newer-line-8") {
		t.Fatalf("alt+o should expand every card:\n%s", s)
	}
}

// TestFindJumpsBetweenHits: Ctrl+F searches what the conversation shows
// and walks the hits, newest first.
func TestFindJumpsBetweenHits(t *testing.T) {
	m := offlineModel(t)
	for i := 0; i < 40; i++ {
		text := "filler message"
		if i == 3 || i == 30 {
			text = "the NEEDLE is here"
		}
		feed(m, message.Event{Type: message.EventMessageUpdated, Message: &message.Message{ID: "u" + string(rune('A'+i)), Role: message.RoleUser}},
			message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "p" + string(rune('A'+i)), MessageID: "u" + string(rune('A'+i)), Type: message.PartText, Text: text + " " + string(rune('A'+i))}})
	}
	m.Update(keyPress("ctrl+f"))
	for _, r := range "needle" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	s := screenOf(m)
	if !strings.Contains(s, "match 2 of 2") || !strings.Contains(s, "NEEDLE is here "+string(rune('A'+30))) {
		t.Fatalf("first hit:\n%s", s)
	}
	m.Update(keyPress("enter"))
	s = screenOf(m)
	if !strings.Contains(s, "match 1 of 2") || !strings.Contains(s, "▌ the NEEDLE is here "+string(rune('A'+3))) {
		t.Fatalf("older hit not in view:\n%s", s)
	}
	if m.editor.value() != "" {
		t.Errorf("the query went to the editor: %q", m.editor.value())
	}
	m.Update(keyPress("esc"))
	if m.drawer != nil {
		t.Error("esc did not close the search")
	}
}
