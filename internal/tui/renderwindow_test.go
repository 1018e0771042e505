package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// scrollToTop presses PageUp until the view starts at the first line,
// calling look after every frame, and loads the earlier messages each
// time it reaches their row; it fails after too many pages.
func scrollToTop(t *testing.T, m *Model, look func()) {
	t.Helper()
	for i := 0; ; i++ {
		if !m.chat.follow && m.chat.top == (chatPos{}) {
			return
		}
		if i > 20000 {
			t.Fatalf("still not at the top after %d pages; top %+v", i, m.chat.top)
		}
		_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyPgUp})
		look()
		if m.chat.earlier.loading { // earlier.go: the page above is read
			m.Update(awaitEarlier(t, cmd))
			look()
		}
	}
}

// TestScrollingToTheTopShowsEveryMessage pages from the end of a long
// session to its start and finds every question and every answer on some
// screen on the way, in order: dropping renderings out of the window
// loses nothing, and the chat, opened with the session's tail, loads the
// messages above it as the view reaches them (earlier.go).
func TestScrollingToTheTopShowsEveryMessage(t *testing.T) {
	const turns = 150
	s := newBenchSession(t, turns)
	m := s.openModel(t, 100, 30)
	defer m.Close()
	if len(m.msgs) >= 2*turns || !m.chat.earlier.more {
		t.Fatalf("the chat opened with %d of %d messages (more above: %v), want its tail", len(m.msgs), 2*turns, m.chat.earlier.more)
	}
	questions, answers := map[int]bool{}, map[int]bool{}
	qre, are := regexp.MustCompile(`question (\d+):`), regexp.MustCompile(`Answer \**(\d+)\**`)
	look := func() {
		screen := screenOf(m)
		for _, g := range qre.FindAllStringSubmatch(screen, -1) {
			n, _ := strconv.Atoi(g[1])
			questions[n] = true
		}
		for _, g := range are.FindAllStringSubmatch(screen, -1) {
			n, _ := strconv.Atoi(g[1])
			answers[n] = true
		}
	}
	look()
	scrollToTop(t, m, look)
	if !strings.Contains(screenOf(m), "question 0:") {
		t.Fatalf("the top of the session is not on screen:\n%s", screenOf(m))
	}
	var missing []string
	for i := range turns {
		if !questions[i] {
			missing = append(missing, fmt.Sprintf("question %d", i))
		}
		if !answers[i] {
			missing = append(missing, fmt.Sprintf("answer %d", i))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("never on screen while paging up: %v", missing)
	}
	next := 0
	for _, it := range m.chat.items {
		if u, ok := it.(*userItem); ok {
			if g := qre.FindStringSubmatch(u.text); g != nil {
				if n, _ := strconv.Atoi(g[1]); n != next {
					t.Fatalf("question %d where question %d belongs", n, next)
				}
				next++
			}
		}
	}
	if next != turns || m.chat.earlier.more {
		t.Fatalf("%d questions in the conversation at the top, want %d (more above: %v)", next, turns, m.chat.earlier.more)
	}
}

// TestScrolledPastItemsDropTheirRendering pages from the end of a long
// session to its start: afterwards only the items in a window around the
// view hold rendered lines, and paging back down renders them again.
func TestScrolledPastItemsDropTheirRendering(t *testing.T) {
	s := newBenchSession(t, 150) // 600 items
	m := s.openModel(t, 100, 30)
	defer m.Close()
	scrollToTop(t, m, func() {})
	held := func() (n int) {
		for _, it := range m.chat.items {
			if h, ok := it.(holdsRendering); ok && h.rendered() {
				n++
			}
		}
		return n
	}
	if n, limit := held(), 2*renderKeepItems+m.chat.height; n > limit {
		t.Fatalf("%d of %d items hold rendered lines at the top of the session, want at most %d", n, len(m.chat.items), limit)
	}
	for range 3 {
		m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	if !regexp.MustCompile(`question \d+:`).MatchString(screenOf(m)) {
		t.Fatalf("paging down again shows:\n%s", screenOf(m))
	}
	for _, r := range m.chat.rows {
		if r >= 0 && !m.chat.items[r].(holdsRendering).rendered() {
			t.Fatalf("item %d is on screen without its lines", r)
		}
	}
}

// TestFinishedMarkdownSplitsWhenShown: a finished text (a resumed
// session's part) is held as given, split into blocks only when laid
// out, and let go of again when its renderings are dropped; laid out
// again it reads the same.
func TestFinishedMarkdownSplitsWhenShown(t *testing.T) {
	text := "# Title\n\nA paragraph with **bold**.\n\n```go\nfunc main() {}\n```"
	d := newMarkdown(text, true)
	if len(d.blocks) != 0 || d.text() != text {
		t.Fatalf("a finished text was split before it was shown: %d blocks", len(d.blocks))
	}
	plain, missing := d.lines(40, true)
	if len(missing) != 3 {
		t.Fatalf("missing %d blocks, want 3", len(missing))
	}
	for _, blk := range missing {
		blk.r = mdRendering{key: mdKey{40, true, blk.src}, lines: renderMarkdown(blk.src, 40, true)}
	}
	if !d.holdsRenderings() || !d.rendered(40, true) {
		t.Fatal("the renderings did not land")
	}
	d.dropRenderings()
	if d.holdsRenderings() || len(d.blocks) != 0 || d.text() != text {
		t.Fatalf("after the drop: %d blocks, text %q", len(d.blocks), d.text())
	}
	again, missing := d.lines(40, true)
	if strings.Join(again, "\n") != strings.Join(plain, "\n") || len(missing) != 3 {
		t.Fatalf("laid out again:\n%s\nwant:\n%s", strings.Join(again, "\n"), strings.Join(plain, "\n"))
	}
	d.append("\n\nmore") // a finished text that changes again
	if d.text() != text+"\n\nmore" {
		t.Fatalf("text after append: %q", d.text())
	}
}
