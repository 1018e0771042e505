package tui

import (
	"context"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// awaitEarlier runs cmd's tree in the background and returns the
// earlierLoadedMsg it yields (the chat's page of earlier messages).
func awaitEarlier(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	out := make(chan tea.Msg, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case earlierLoadedMsg:
				out <- msg
			}
		}()
	}
	run(cmd)
	select {
	case msg := <-out:
		return msg
	case <-time.After(10 * time.Second):
		t.Fatal("no page of earlier messages was read")
		return nil
	}
}

// TestEarlierMessagesKeepTheView: at the top of a resumed session's
// tail the "loading earlier messages…" row shows; the page read above
// it goes in without moving what was on screen below the row.
func TestEarlierMessagesKeepTheView(t *testing.T) {
	s := newBenchSession(t, 150)
	m := s.openModel(t, 100, 30)
	defer m.Close()
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyHome, Mod: tea.ModCtrl})
	before := strings.Split(screenOf(m), "\n")
	if !strings.Contains(before[0]+before[1], "loading earlier messages") || !m.chat.earlier.loading {
		t.Fatalf("the top of the tail (loading: %v):\n%s", m.chat.earlier.loading, strings.Join(before, "\n"))
	}
	n := len(m.chat.items)
	m.Update(awaitEarlier(t, cmd))
	after := strings.Split(screenOf(m), "\n")
	if len(m.chat.items) <= n {
		t.Fatalf("%d items after the page, %d before", len(m.chat.items), n)
	}
	row := 0
	for !strings.Contains(before[row], "loading earlier messages") {
		row++
	}
	if got, want := strings.Join(after[row+1:], "\n"), strings.Join(before[row+1:], "\n"); got != want {
		t.Fatalf("the view moved under the new page:\n%s\nwant:\n%s", got, want)
	}
}

// TestRewindReadsTheHistoryOffTheUpdateLoop: /rewind's turn list and the
// conversation rebuilt after an undo are read in commands; Update (run
// on the test's goroutine by the harness) never reads the history.
func TestRewindReadsTheHistoryOffTheUpdateLoop(t *testing.T) {
	needGit(t)
	h := newHarness(t, append(twoWrites(), pt.Text("second answer")), allowWrites)
	h.sendTurn("first turn", 3)
	h.sendTurn("second turn", 4)
	test := goroutineID()
	var onUpdate, off atomic.Int32
	saved := historyRead
	historyRead = func() {
		if goroutineID() == test {
			onUpdate.Add(1)
		} else {
			off.Add(1)
		}
	}
	t.Cleanup(func() { historyRead = saved })

	h.command("/rewind")
	h.waitScreen("Rewind: take the session back")
	if onUpdate.Load() != 0 || off.Load() == 0 {
		t.Fatalf("/rewind's turns: %d reads on the Update goroutine, %d off it", onUpdate.Load(), off.Load())
	}
	h.key("esc")
	reads := off.Load()
	h.command("/undo")
	h.waitFor("the undo", func(m *Model) bool { return m.editor.value() == "second turn" })
	if onUpdate.Load() != 0 || off.Load() == reads {
		t.Fatalf("the conversation after /undo: %d reads on the Update goroutine, %d off it", onUpdate.Load(), off.Load()-reads)
	}
	if u := userTexts(h.m); len(u) != 1 || u[0] != "first turn" {
		t.Fatalf("after /undo the chat shows %q", u)
	}
}

// goroutineID is the number of the calling goroutine.
func goroutineID() int {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	n, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')])
	return n
}

// TestTodoListBeforeTheTailShows: the newest todo list lies before the
// tail the chat opens with; the panel shows it all the same, and the
// older list in a page read above does not replace it.
func TestTodoListBeforeTheTailShows(t *testing.T) {
	s := newBenchSession(t, 0)
	turns := benchTurns(2 * chatOpenMessages)
	for i, text := range map[int]string{1: "older plan", 5: "newer plan"} {
		a := &turns[2*i+1]
		a.Parts = append(a.Parts, message.Part{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprint("t", i),
			Name: "todo_write", Status: message.ToolCompleted, Input: `{"todos":[{"id":"1","text":"` + text + `","status":"in_progress"}]}`}})
	}
	if err := s.store.ImportHistory(context.Background(), s.id, turns); err != nil {
		t.Fatal(err)
	}
	m := s.openModel(t, 100, 30)
	defer m.Close()
	if got := todoText(m); !strings.Contains(got, "newer plan") {
		t.Fatalf("the panel at open: %q", got)
	}
	scrollToTop(t, m, func() {})
	if got := todoText(m); !strings.Contains(got, "newer plan") {
		t.Fatalf("the panel after the pages above were read: %q", got)
	}
}

// TestFindSearchesTheMessagesAboveTheTail: Ctrl+F in a resumed session
// that opened by its tail reads the messages above it first, so that a
// search finds the session's first question.
func TestFindSearchesTheMessagesAboveTheTail(t *testing.T) {
	s := newBenchSession(t, 150)
	m := s.openModel(t, 100, 30)
	defer m.Close()
	_, cmd := m.Update(keyPress("ctrl+f"))
	if !m.chat.earlier.loading {
		t.Fatal("Ctrl+F did not read the messages above the tail")
	}
	m.Update(awaitEarlier(t, cmd))
	for _, r := range "question 3:" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if screen := screenOf(m); !strings.Contains(screen, "match 1 of 1") || !strings.Contains(screen, "question 3: could you") {
		t.Fatalf("the search for the fourth question:\n%s", screen)
	}
}
