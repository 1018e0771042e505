package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestTodoPanelShowsCollapsesAndResumes: the list a todo_write set shows
// above the editor as it arrives (escape sequences in an item stripped),
// ctrl+t collapses it to one line, and a chat that opens the session
// again shows the list from the history.
func TestTodoPanelShowsCollapsesAndResumes(t *testing.T) {
	three := `{"todos":[{"id":"1","text":"read the parser","status":"done"},{"id":"2","text":"fix the \u001b[31moff-by-one","status":"in_progress"},{"id":"3","text":"run the tests","status":"pending"}]}`
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "todo_write", three), pt.Text("planned")})
	h.typeText("fix the parser")
	h.key("enter")
	h.waitFor("the turn to end", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	h.waitScreen("todo 1/3 done")
	screen := h.screen()
	if !strings.Contains(screen, "▸ fix the off-by-one") || !strings.Contains(screen, "○ run the tests") || !strings.Contains(screen, "✓ read the parser") {
		t.Fatalf("the panel:\n%s", screen)
	}
	if strings.Contains(h.m.View().Content, "\x1b[31moff") {
		t.Error("an item's escape sequence reached the screen")
	}
	h.key("ctrl+t")
	screen = h.screen()
	if !strings.Contains(screen, "todo 1/3 done · now: fix the off-by-one · ctrl+t shows") || strings.Contains(screen, "○ run the tests") {
		t.Fatalf("collapsed:\n%s", screen)
	}

	id := h.m.sess.ID
	opt := h.m.opt
	h.m.Close()
	opt.SessionID = id
	m2 := New(opt)
	t.Cleanup(m2.Close)
	m2.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m2.Update(m2.openSession(id)())
	if m2.runner == nil {
		t.Fatalf("not open: %v", m2.openErr)
	}
	if s := screenOf(m2); !strings.Contains(s, "todo 1/3 done") || !strings.Contains(s, "▸ fix the off-by-one") {
		t.Fatalf("the resumed chat:\n%s", s)
	}
}

// TestTodoPanelFollowsARewind: the history shown after a rewind leaves
// out the messages taken back, and the panel shows the list as it was
// before them.
func TestTodoPanelFollowsARewind(t *testing.T) {
	call := func(id, input string, rewound bool) message.Entry {
		m := message.Message{ID: id, Role: message.RoleAssistant}
		if rewound {
			m.RewindID = "rw"
		}
		return message.Entry{Message: m, Parts: []message.Part{{ID: "p" + id, MessageID: id, Type: message.PartTool,
			Tool: &message.ToolState{CallID: "c" + id, Name: "todo_write", Status: message.ToolCompleted, Input: input}}}}
	}
	first := `{"todos":[{"id":"1","text":"first plan","status":"in_progress"}]}`
	second := `{"todos":[{"id":"1","text":"second plan","status":"in_progress"}]}`
	m := New(Options{})
	t.Cleanup(m.Close)
	m.buildHistory([]message.Entry{call("01", first, false), call("02", second, false)}, false, nil)
	if s := todoText(m); !strings.Contains(s, "second plan") {
		t.Fatalf("before the rewind: %q", s)
	}
	m.buildHistory([]message.Entry{call("01", first, false), call("02", second, true)}, false, nil)
	if s := todoText(m); !strings.Contains(s, "first plan") || strings.Contains(s, "second plan") {
		t.Fatalf("after the rewind: %q", s)
	}
}

func todoText(m *Model) string {
	return ansi.Strip(strings.Join(m.editor.todo.lines(m.th, 80, true), "\n"))
}
