package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func inlineMode(o *Options) { o.Inline = true }

// scrollback is what the model printed into the terminal's scrollback,
// without styles.
func (h *harness) scrollback() string { return ansi.Strip(strings.Join(h.printed, "\n")) }

// TestInlinePrintsFinishedItemsInOrder: in inline mode the welcome screen,
// the user's message and a finished, rendered reply go to the scrollback
// in order and leave the live region; a reply still streaming stays live.
func TestInlinePrintsFinishedItemsInOrder(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{
		pt.Text("First **reply** here.\n\n- alpha\n- beta\n"),
		pt.Reply(pt.TextChunk("partial second"), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
	}, inlineMode)
	v := h.m.View()
	if v.AltScreen || v.MouseMode != tea.MouseModeNone {
		t.Errorf("inline view: alt screen %v, mouse mode %v; want the main screen and no mouse", v.AltScreen, v.MouseMode)
	}
	h.waitFor("the welcome screen to be printed", func(m *Model) bool { return strings.Contains(h.scrollback(), "Tips") })

	h.typeText("hello")
	h.key("enter")
	h.waitFor("the reply to be printed", func(m *Model) bool { return idle(m) && strings.Contains(h.scrollback(), "• alpha") })
	sb := h.scrollback()
	if w, u, r := strings.Index(sb, "Tips"), strings.Index(sb, "▌ hello"), strings.Index(sb, "First reply here"); !(w < u && u < r) {
		t.Errorf("scrollback out of order (welcome %d, user %d, reply %d):\n%s", w, u, r, sb)
	}
	if strings.Contains(sb, "**reply**") {
		t.Errorf("reply printed before its markdown was rendered:\n%s", sb)
	}
	if s := h.screen(); strings.Contains(s, "▌ hello") || strings.Contains(s, "First reply") {
		t.Errorf("printed items still drawn in the live region:\n%s", s)
	}

	h.typeText("again")
	h.key("enter")
	h.waitFor("the second reply to stream", func(m *Model) bool { return strings.Contains(screenOf(m), "partial second") })
	// The first reply's print may still be in flight (its acknowledgement
	// not yet back): the message goes out after it, while the reply,
	// blocked, still streams (TestInlineSendDuringAPrintKeepsOrder).
	h.waitFor("the sent message to be printed", func(m *Model) bool { return strings.Contains(h.scrollback(), "▌ again") })
	if strings.Contains(h.scrollback(), "partial second") {
		t.Errorf("a streaming reply was printed:\n%s", h.scrollback())
	}
	close(release)
	h.waitFor("the second reply to be printed", func(m *Model) bool { return idle(m) && strings.Contains(h.scrollback(), "partial second") })
	if n := strings.Count(h.scrollback(), "▌ hello"); n != 1 {
		t.Errorf("the first message was printed %d times", n)
	}
	// The live region never reaches the terminal's height.
	if lines := strings.Count(h.screen(), "\n") + 1; lines > h.m.height-liveSpareRows {
		t.Errorf("live region has %d lines in a %d-line terminal", lines, h.m.height)
	}
}

// TestInlineScrollKeysExplain: pgup and ctrl+f have nothing to move in
// inline mode; they say where the conversation is.
func TestInlineScrollKeysExplain(t *testing.T) {
	h := newHarness(t, nil, inlineMode)
	for _, k := range []string{"pgup", "ctrl+f"} {
		h.key(k)
		if s := h.screen(); !strings.Contains(s, "inline mode") {
			t.Errorf("%s in inline mode: no explanation on screen:\n%s", k, s)
		}
		if _, ok := h.m.drawer.(*findDrawer); ok {
			t.Errorf("%s opened the find drawer in inline mode", k)
		}
	}
}

// TestInlineResumePrintsTheLastMessages: resuming a long session prints
// only its last messages, after a note that counts the others.
func TestInlineResumePrintsTheLastMessages(t *testing.T) {
	h := newHarness(t, nil, inlineMode)
	ctx := context.Background()
	sess := &message.Session{Title: "long", Model: "gpt-4.1", Dir: h.dir}
	if err := h.store.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	const turns = 30
	for i := range turns {
		for _, role := range []message.Role{message.RoleUser, message.RoleAssistant} {
			msg := message.Message{SessionID: sess.ID, Role: role, Model: "gpt-4.1", FinishedAt: time.Now()}
			if role == message.RoleAssistant {
				msg.FinishReason = "stop"
			}
			if err := h.store.CreateMessage(ctx, &msg); err != nil {
				t.Fatal(err)
			}
			if err := h.store.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: msg.ID, Type: message.PartText,
				Text: fmt.Sprintf("%s number %d", role, i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	h.m.Close()
	opt := h.m.opt
	opt.SessionID = sess.ID
	h.printed = nil
	h.start(opt)
	h.waitFor("the history to be printed", func(m *Model) bool { return strings.Contains(h.scrollback(), "assistant number 29") })
	sb := h.scrollback()
	skipped := 2*turns - resumeInlineMessages
	if !strings.Contains(sb, fmt.Sprintf("%d earlier messages not shown", skipped)) {
		t.Errorf("no note on the messages left out:\n%s", sb)
	}
	if strings.Contains(sb, "number 0\n") || strings.Contains(sb, fmt.Sprintf("user number %d ", skipped/2-1)) {
		t.Errorf("an early message was printed:\n%s", sb)
	}
	if !strings.Contains(sb, fmt.Sprintf("user number %d", skipped/2)) {
		t.Errorf("the first kept message is missing:\n%s", sb)
	}
}

// TestCopySelectedMessage: alt+y copies the newest reply as written, the
// message alt+↑ selects, and /copy code the last code block; the flash
// counts the lines.
func TestCopySelectedMessage(t *testing.T) {
	reply := "Use this:\n\n```go\nfunc f() int {\n\treturn 1\n}\n```\n\nThat is all."
	h := newHarness(t, []pt.Step{pt.Text(reply)})
	h.typeText("show me")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "That is all") })

	h.key("alt+y")
	if len(h.copied) != 1 || h.copied[0] != reply {
		t.Fatalf("alt+y copied %q, want the reply as written", h.copied)
	}
	if want := fmt.Sprintf("copied %d lines", strings.Count(reply, "\n")+1); !strings.Contains(h.screen(), want) {
		t.Errorf("no %q notice:\n%s", want, h.screen())
	}

	h.typeText("/copy code")
	h.key("enter")
	if len(h.copied) != 2 || h.copied[1] != "func f() int {\n\treturn 1\n}" {
		t.Errorf("/copy code copied %q", h.copied[1:])
	}

	h.key("alt+up") // the reply
	h.key("alt+up") // the user's message
	h.key("alt+y")
	if got := h.copied[len(h.copied)-1]; got != "show me" {
		t.Errorf("alt+y on the selected user message copied %q", got)
	}
}

// TestInlineCopyAfterPrinting: a reply already in the scrollback can
// still be copied.
func TestInlineCopyAfterPrinting(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one\ntwo\nthree")}, inlineMode)
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the reply to be printed", func(m *Model) bool { return idle(m) && strings.Contains(h.scrollback(), "three") })
	h.key("alt+y")
	if len(h.copied) != 1 || h.copied[0] != "one\ntwo\nthree" {
		t.Errorf("copied %q", h.copied)
	}
}

// TestStreamingRedrawsOnlyChangedLines is the frame counter: while text
// streams into the last block, a frame of the same height differs from
// the one before only in the lines of the streaming block that changed
// and the status line. A full repaint per token (every line touched)
// fails it. Frames where the block grows a line are counted apart: the
// fullscreen view scrolls then (one scroll, which the renderer does with
// a scroll), and the inline frame grows.
func TestStreamingRedrawsOnlyChangedLines(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(map[bool]string{false: "fullscreen", true: "inline"}[inline], func(t *testing.T) {
			var opts []harnessOption
			if inline {
				opts = append(opts, inlineMode)
			}
			h := newHarness(t, []pt.Step{pt.Text("A first answer, to fill the screen a little.")}, opts...)
			h.typeText("start")
			h.key("enter")
			h.waitFor("the first turn", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m)+h.scrollback(), "first answer") })

			m := h.m
			msg := message.Message{ID: message.NewID(), SessionID: m.sess.ID, Role: message.RoleAssistant}
			part := message.Part{ID: message.NewID(), SessionID: m.sess.ID, MessageID: msg.ID, Type: message.PartText}
			event := func(ev message.Event) tea.Msg { return inboxMsg{loopEvent{gen: m.gen, ev: ev}} }
			m.Update(event(message.Event{Type: message.EventMessageUpdated, Message: &msg}))
			m.Update(event(message.Event{Type: message.EventStatus, Busy: true}))
			m.Update(event(message.Event{Type: message.EventPartUpdated, Part: &part}))
			// Deltas go straight to Update: no markdown render arrives, so
			// the block's lines change only where text was added.
			words := strings.Fields("the fix is to check the error before using the result and to return early when the context is cancelled so that nothing is written after the client went away")
			frame := func() []string { return strings.Split(m.View().Content, "\n") }
			itemLines := func() []string {
				it, _ := m.parts[part.ID].(*textItem)
				if it == nil {
					return nil
				}
				return append([]string(nil), it.lines(&m.rc)...)
			}
			prev, prevItem := frame(), itemLines()
			steady, grown := 0, 0
			for i := range 200 {
				m.Update(event(message.Event{Type: message.EventPartDelta, Part: &part, Delta: words[i%len(words)] + " "}))
				cur, curItem := frame(), itemLines()
				if len(curItem) != len(prevItem) || len(cur) != len(prev) {
					grown++
				} else {
					steady++
					changedItem := 0
					for j := range curItem {
						if curItem[j] != prevItem[j] {
							changedItem++
						}
					}
					changed := 0
					for j := range cur {
						if cur[j] != prev[j] {
							changed++
						}
					}
					if allowed := changedItem + 1; changed > allowed {
						t.Fatalf("frame %d redrew %d lines; the block changed %d (+1 status line)", i, changed, changedItem)
					}
				}
				prev, prevItem = cur, curItem
			}
			if steady < 150 || grown > 50 {
				t.Errorf("%d steady frames and %d that grew, of 200: the block should grow a line every few words", steady, grown)
			}
		})
	}
}

// TestInlineLiveRegionDoesNotShrinkBetweenPrints: closing an overlay in
// inline mode keeps the frame's height (blank rows above) until the next
// print, because the inline renderer would leave the overlay's top rows on
// the screen and the next print would push them into the scrollback.
func TestInlineLiveRegionDoesNotShrinkBetweenPrints(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("a reply"), pt.Text("another reply")}, inlineMode)
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the reply to be printed", func(m *Model) bool { return idle(m) && strings.Contains(h.scrollback(), "a reply") && !m.printing })
	rows := func() int { return strings.Count(h.m.View().Content, "\n") + 1 }
	small := rows()
	h.typeText("/context")
	h.key("enter")
	h.waitScreen("Compaction at")
	tall := rows()
	if tall <= small {
		t.Fatalf("the /context overlay did not make the frame taller (%d → %d rows)", small, tall)
	}
	h.key("esc")
	if got := rows(); got != tall {
		t.Errorf("closing the overlay shrank the frame from %d to %d rows before any print", tall, got)
	}
	h.typeText("again")
	h.key("enter")
	h.waitFor("the second reply to be printed", func(m *Model) bool {
		return idle(m) && strings.Contains(h.scrollback(), "another reply") && !m.printing
	})
	if got := rows(); got >= tall {
		t.Errorf("after a print the frame is still %d rows (the overlay's %d)", got, tall)
	}
}

// terminalEvent is a frame drawn after an Update (rows > 0) or a piece of
// a print reaching the terminal (piece lines > 0), in the order Bubble
// Tea would see them.
type terminalEvent struct {
	rows, piece int
	frame       string
}

// pieceOut is what a piece's command yields in recordTerminal: the piece
// reached the terminal then.
type pieceOut struct{ lines int }

// recordTerminal draws a frame after every Update, as Bubble Tea does, and
// logs the frames and the pieces of prints in order.
func recordTerminal(h *harness) *[]terminalEvent {
	var log []terminalEvent
	h.onFrame = func(v tea.View) {
		log = append(log, terminalEvent{rows: strings.Count(v.Content, "\n") + 1, frame: v.Content})
	}
	record := h.m.printCmd
	h.m.printCmd = func(text string) tea.Cmd {
		record(text)
		n := strings.Count(text, "\n") + 1
		return func() tea.Msg { return pieceOut{n} }
	}
	h.onPiece = func(n int) { log = append(log, terminalEvent{piece: n}) }
	return &log
}

// inlineScenario runs, in inline mode, a reply taller than the terminal
// (it streams in a tall frame, then goes to the scrollback), then the
// /context overlay closed (the frame keeps its height), then a message of
// many lines sent while that frame is drawn.
func inlineScenario(t *testing.T) (*harness, []terminalEvent) {
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "Paragraph %d of the long answer.\n\n", i)
	}
	h := newHarness(t, []pt.Step{pt.Text(long.String()), pt.Text("short answer")}, inlineMode)
	log := recordTerminal(h)
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the long reply to be printed", func(m *Model) bool {
		return idle(m) && strings.Contains(h.scrollback(), "Paragraph 39") && !m.printing
	})
	h.typeText("/context")
	h.key("enter")
	h.waitScreen("Compaction at")
	h.key("esc")
	for i := range 14 {
		if i > 0 {
			h.key("ctrl+j")
		}
		h.typeText(fmt.Sprintf("line-%d", i))
	}
	h.key("enter")
	h.waitFor("the second reply to be printed", func(m *Model) bool {
		return idle(m) && strings.Contains(h.scrollback(), "short answer") && !m.printing
	})
	if n := strings.Count(h.scrollback(), "Paragraph 7 of"); n != 1 {
		t.Errorf("paragraph 7 printed %d times", n)
	}
	if !strings.Contains(h.scrollback(), "line-13") {
		t.Errorf("the long message was not printed:\n%s", h.scrollback())
	}
	return h, *log
}

// TestInlinePrintPiecesFitAboveAnyFrame: Bubble Tea prints above the frame
// it drew last, and it draws on its own ticker: when a piece goes out, the
// frame on the terminal may be one the model has since replaced (the tall
// frame of a reply that streamed, a closed overlay's blank rows). Its
// insertAbove scrolls by the piece, then moves up the piece plus that
// frame's height less one; past the top of the terminal the move stops
// short, the frame's top rows go into the scrollback and the frame is
// garbled. So every frame inline mode draws stays liveSpareRows short of
// the terminal, and every piece fits above the tallest, whatever was drawn
// last.
func TestInlinePrintPiecesFitAboveAnyFrame(t *testing.T) {
	h, log := inlineScenario(t)
	rows := h.m.height
	last, tallest, pieces := 0, 0, 0
	for _, e := range log {
		if e.rows > 0 {
			last, tallest = e.rows, max(tallest, e.rows)
			if e.rows > rows-liveSpareRows {
				t.Errorf("a frame of %d rows in a %d-row terminal", e.rows, rows)
			}
			continue
		}
		pieces++
		if e.piece+last > rows-1 {
			t.Errorf("piece %d: %d lines above the %d-row frame drawn last, in a %d-row terminal", pieces, e.piece, last, rows)
		} else if e.piece+tallest > rows-1 {
			t.Errorf("piece %d: %d lines would not fit above a %d-row frame drawn before, in a %d-row terminal", pieces, e.piece, tallest, rows)
		}
	}
	if pieces < 40 {
		t.Errorf("%d pieces went out; the scenario prints more than 80 lines", pieces)
	}
}

// TestInlineFrameShrinksOnlyAfterAPieceWentOut: when a frame shrinks,
// Bubble Tea moves up from its cursor no further than the new frame's
// height and leaves the old frame's top rows on the screen, and the next
// piece pushes them into the scrollback: the tail of a reply that streamed
// was there twice. A piece leaves the cursor at the top of the frame, and
// a frame equal to the one before is not drawn again; so a frame may be
// shorter than the last one that changed only when a piece went out since.
func TestInlineFrameShrinksOnlyAfterAPieceWentOut(t *testing.T) {
	_, log := inlineScenario(t)
	prev, atTop, shrinks := terminalEvent{}, false, 0
	for i, e := range log {
		if e.piece > 0 {
			atTop = true
			continue
		}
		if e.frame == prev.frame {
			continue // not drawn again: the cursor stays
		}
		if e.rows < prev.rows {
			shrinks++
			if !atTop {
				t.Errorf("event %d: the frame shrank from %d to %d rows with no piece gone out since it was drawn", i, prev.rows, e.rows)
			}
		}
		prev, atTop = e, false
	}
	if shrinks < 2 {
		t.Errorf("the frame shrank %d times; the scenario shrinks it after the long reply and after the overlay", shrinks)
	}
}

// TestInlineFrameStaysWithinTheCap: the floor a closed overlay left does
// not outlive a smaller terminal, and in a terminal too short for a full
// editor the frame loses its top rows, not the status line: no frame is
// ever taller than liveCap, which the size of a print's pieces relies on.
func TestInlineFrameStaysWithinTheCap(t *testing.T) {
	h := newHarness(t, nil, inlineMode)
	rows := func() int { return strings.Count(h.m.View().Content, "\n") + 1 }
	small := rows()
	h.typeText("/help")
	h.key("enter")
	h.waitScreen("inline mode")
	tall := rows()
	h.key("esc")
	if tall < small+liveSpareRows+2 {
		t.Fatalf("the help overlay did not make the frame taller (%d → %d rows)", small, tall)
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: tall})
	if got := rows(); got > liveCap(tall) {
		t.Errorf("after the terminal shrank to %d rows the frame has %d (the cap is %d)", tall, got, liveCap(tall))
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 12})
	for i := range 10 {
		if i > 0 {
			h.key("ctrl+j")
		}
		h.typeText(fmt.Sprintf("line-%d", i))
	}
	screen := h.screen()
	if got := strings.Count(screen, "\n") + 1; got > liveCap(12) {
		t.Errorf("a 12-row terminal with a full editor: %d rows, the cap is %d:\n%s", got, liveCap(12), screen)
	}
	if !strings.Contains(screen, "gpt-4.1") {
		t.Errorf("the status line was cut:\n%s", screen)
	}
}

// TestExitFrameKeepsHeightAndLiveLines: the last frame of inline mode is
// as tall as the one it replaces and holds only the conversation's lines.
func TestExitFrameKeepsHeightAndLiveLines(t *testing.T) {
	frame := "streamed\n───\n› Message the agent\n gpt-4.1"
	got := exitFrame(frame, []string{"streamed"})
	if got != "\n\n\n streamed" {
		t.Errorf("exitFrame = %q", got)
	}
	if got := exitFrame("a\nb", []string{"1", "2", "3"}); got != " 2\n 3" {
		t.Errorf("exitFrame of more live lines than rows = %q", got)
	}
}
