package tui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// resumeModel is a chat about to resume a session of turns (benchTurns).
func resumeModel(t *testing.T, turns int) (*Model, string) {
	t.Helper()
	ctx := context.Background()
	dir, data, home := t.TempDir(), t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: "http://127.0.0.1:1/v1", DataDir: data}, dir,
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sess := &message.Session{Title: "a long one", Model: "gpt-4.1", Dir: dir}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := st.ImportHistory(ctx, sess.ID, benchTurns(turns)); err != nil {
		t.Fatal(err)
	}
	m := New(Options{SessionID: sess.ID, Loop: loop.Options{Store: st, Tools: tools.NewRegistry(), Config: cfg,
		Dir: dir, OutputDir: filepath.Join(data, "outputs")}})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, sess.ID
}

// TestResumeShowsTheTailFirst: while the session opens, the chat shows
// its last messages; when the whole history arrives, the screen does not
// change (the same items stay, their markdown with them), the older
// messages are there to scroll to (loaded as the view reaches them:
// earlier.go), and the editor's history has what the user wrote.
func TestResumeShowsTheTailFirst(t *testing.T) {
	for _, scrolled := range []bool{false, true} {
		m, id := resumeModel(t, 200) // 400 messages: more than the tail
		open := m.openSession(id)    // a new generation, opening
		tail, ok := m.loadTail(id)().(tailLoadedMsg)
		if !ok || len(tail.entries) != resumeTailMessages {
			t.Fatalf("tail = %+v", tail)
		}
		m.Update(tail)
		if m.runner != nil || !m.opening {
			t.Fatal("the tail opened the session")
		}
		screen := screenOf(m)
		if !strings.Contains(screen, "Answer **199**") || !strings.Contains(screen, "opening") || !strings.Contains(screen, "a long one") {
			t.Fatalf("the tail's screen:\n%s", screen)
		}
		if scrolled {
			m.Update(keyPress("pgup"))
		}
		before := slices.Clone(m.chat.visible)
		last := m.chat.items[len(m.chat.items)-2]
		m.Update(open())
		if m.runner == nil {
			t.Fatalf("not open: %v", m.openErr)
		}
		if !slices.Equal(m.chat.visible, before) {
			t.Errorf("scrolled=%v: the screen changed when the history arrived:\nbefore\n%s\nafter\n%s",
				scrolled, strings.Join(before, "\n"), strings.Join(m.chat.visible, "\n"))
		}
		if m.chat.items[len(m.chat.items)-2] != last {
			t.Error("the tail's items were not kept")
		}
		if n := len(m.chat.items); n < 2*chatOpenMessages || !m.chat.earlier.more || m.chat.items[0] != m.chat.earlier.row {
			t.Errorf("%d items after the open, more above: %v; want the open's tail below the row of earlier messages (earlier.go)", n, m.chat.earlier.more)
		}
		if h := m.editor.history; len(h) == 0 || !strings.Contains(h[len(h)-1], "question 199") {
			t.Errorf("editor history = %d entries", len(h))
		}
	}
}

// TestTailAfterTheOpenIsIgnored: a tail read that arrives after the
// session opened (or for an older generation) changes nothing.
func TestTailAfterTheOpenIsIgnored(t *testing.T) {
	m, id := resumeModel(t, 3)
	open := m.openSession(id)
	tail := m.loadTail(id)()
	m.Update(open())
	items := len(m.chat.items)
	m.Update(tail)
	if len(m.chat.items) != items || m.tailItems != nil {
		t.Errorf("a late tail changed the chat: %d items, was %d", len(m.chat.items), items)
	}
}

// TestInlineResumeWaitsForTheHistory: inline mode prints what it shows
// into the scrollback for good, so it reads no tail.
func TestInlineResumeWaitsForTheHistory(t *testing.T) {
	m, id := resumeModel(t, 3)
	m.inline = true
	if m.loadTail(id) != nil {
		t.Error("inline mode reads a tail")
	}
}
