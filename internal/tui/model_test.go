package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

func TestStreamedReplyIsRenderedAsMarkdown(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("Here is **bold** text and a list:\n\n- alpha\n- beta\n")})
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the turn to end", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.waitScreen("• alpha")
	s := h.screen()
	if !strings.Contains(s, "▌ hello") {
		t.Errorf("user message missing:\n%s", s)
	}
	if strings.Contains(s, "**bold**") {
		t.Errorf("markdown not rendered:\n%s", s)
	}
	if h.m.editor.value() != "" {
		t.Errorf("editor not cleared: %q", h.m.editor.value())
	}
	// The status line shows the calculator's total (it is refreshed after
	// each batch of events, so wait for the last one to land).
	h.waitFor("the status line to show the context total", func(m *Model) bool {
		snap := m.runner.Reading()
		return strings.Contains(screenOf(m), formatTokens(snap.Total)+"/"+formatTokens(snap.Window))
	})
}

func TestHistoryWalksSentMessages(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one"), pt.Text("two")})
	for _, s := range []string{"alpha", "beta"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "▌ "+s) })
	}
	h.typeText("draft")
	h.key("up")
	if v := h.m.editor.value(); v != "beta" {
		t.Fatalf("up: %q", v)
	}
	h.key("up")
	if v := h.m.editor.value(); v != "alpha" {
		t.Fatalf("up up: %q", v)
	}
	h.key("down")
	h.key("down")
	if v := h.m.editor.value(); v != "draft" {
		t.Fatalf("back down to the draft: %q", v)
	}
}

func TestContextOverlayShowsTheCalculatorsSnapshot(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("short"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 5000, Completion: 700, Cached: 4000, Reasoning: 200}))},
		func(o *Options) { o.Loop.TrustUsage = true }) // the usage stands for a larger request
	h.typeText("hi")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.typeText("/context")
	h.key("enter")
	h.waitScreen("Context")
	snap := h.m.runner.Reading()
	read, _, err := loop.StoredReading(context.Background(), h.store, h.cfg, tools.NewRegistry(), h.m.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Total != 5500 || read.Total != snap.Total {
		t.Fatalf("runner total %d, read-only total %d, want 5500 both", snap.Total, read.Total)
	}
	s := h.screen()
	for _, want := range []string{
		"Total 5,500 of " + commas(snap.Window), "basis actual",
		"last input 5,000 + last output 500 + new since 0",
		commas(snap.Breakdown.System), commas(snap.Breakdown.Tools), commas(snap.Breakdown.Messages),
		commas(snap.Free), commas(snap.OutputReserve), "Compaction at " + commas(snap.CompactAt),
		"Last estimate error",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("overlay lacks %q:\n%s", want, s)
		}
	}
	h.key("esc")
	if strings.Contains(h.screen(), "Total 5,500") {
		t.Errorf("esc did not close the overlay")
	}
}

func TestCompactCommandRuns(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.Text("first answer " + strings.Repeat("word ", 200)),
		pt.Text("second answer " + strings.Repeat("more ", 200)),
		pt.Text("third answer"),
		pt.Text("## Goal\nsummary of it all"),
	})
	for _, s := range []string{"one", "two", "three"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "▌ "+s) })
	}
	n := len(h.srv.Requests())
	h.typeText("/compact keep the numbers")
	h.key("enter")
	h.waitScreen("context compacted")
	h.waitFor("the compaction to end", func(m *Model) bool { return !m.compacting })
	if len(h.srv.Requests()) != n+1 {
		t.Errorf("requests %d, want one summary request", len(h.srv.Requests())-n)
	}
	// One line for the compaction; the summary shows on demand, as
	// Markdown without the tags the model reads (issue 14.3).
	h.waitScreen("ctrl+o: summary")
	s := h.screen()
	if strings.Count(s, "context compacted") != 1 || strings.Contains(s, "summary of it all") {
		t.Errorf("want one collapsed compaction card:\n%s", s)
	}
	h.key("ctrl+o")
	h.waitFor("the summary as Markdown", func(m *Model) bool {
		s := screenOf(m)
		return strings.Contains(s, "summary of it all") && !strings.Contains(s, "**What you wrote")
	})
	if s := h.screen(); strings.Contains(s, "user_message") {
		t.Errorf("raw summary shown:\n%s", s)
	}
}

func TestCtrlCClearsThenQuits(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("some draft")
	_, cmd := h.m.Update(keyPress("ctrl+c"))
	if h.m.editor.value() != "" {
		t.Errorf("first ctrl+c left %q", h.m.editor.value())
	}
	if isQuit(cmd) {
		t.Fatal("first ctrl+c quit")
	}
	if !strings.Contains(screenOf(h.m), "ctrl+c again") {
		t.Errorf("no hint:\n%s", screenOf(h.m))
	}
	_, cmd = h.m.Update(keyPress("ctrl+c"))
	if !isQuit(cmd) {
		t.Fatal("second ctrl+c did not quit")
	}
}

// isQuit runs cmd, and the commands of a batch, looking for tea.Quit;
// commands that do not return at once (timers) are not waited for.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		switch msg := msg.(type) {
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			for _, c := range msg {
				if isQuit(c) {
					return true
				}
			}
		}
	case <-time.After(100 * time.Millisecond):
	}
	return false
}

func TestSlashPopupCompletes(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("/co")
	s := h.screen()
	if !strings.Contains(s, "/context") || !strings.Contains(s, "/compact [focus]") || strings.Contains(s, "/sessions") {
		t.Fatalf("popup:\n%s", s)
	}
	h.key("down")
	h.key("tab")
	if v := h.m.editor.value(); v != "/compact " {
		t.Errorf("tab completed to %q", v)
	}
	h.m.editor.reset()
	h.typeText("/hel")
	h.key("enter")
	if !strings.Contains(h.screen(), "Help") || !strings.Contains(h.screen(), "ctrl+j") {
		t.Errorf("help:\n%s", h.screen())
	}
	h.key("esc")
	h.typeText("/nonsense")
	h.key("enter")
	if !strings.Contains(h.screen(), "unknown command /nonsense") || h.m.editor.value() != "/nonsense" {
		t.Errorf("unknown command:\n%s", h.screen())
	}
}

func TestNewlineKeysAndPasteStayInTheEditor(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("line one")
	h.key("ctrl+j")
	h.typeText("line two")
	h.send(tea.PasteMsg{Content: "\npasted\nlines"})
	if v := h.m.editor.value(); v != "line one\nline two\npasted\nlines" {
		t.Errorf("editor = %q", v)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent by newlines or a paste", n)
	}
}

func TestNoCredentialsOpensAndExplains(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Setup = config.ErrNoAPIKey })
	s := h.screen()
	if !strings.Contains(s, "No API key") || !strings.Contains(s, "OPENAI_API_KEY") || !strings.Contains(s, "OPENAI_BASE_URL") {
		t.Fatalf("no explanation:\n%s", s)
	}
	h.typeText("hello")
	h.key("enter")
	if h.m.editor.value() != "hello" {
		t.Errorf("text lost: %q", h.m.editor.value())
	}
	if !strings.Contains(h.screen(), "not sent") {
		t.Errorf("no refusal:\n%s", h.screen())
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestModelTextCannotEscapeToTheTerminal(t *testing.T) {
	evil := "title\x1b]0;pwned\x07 \x1b[2J clear \x1b]52;c;Zm9v\x07 clip \x9b31m"
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c", "ls", `{"path":"."}`),
		pt.Text(evil),
	})
	h.typeText("x")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	h.waitScreen("clip")
	content := h.m.View().Content
	for _, bad := range []string{"\x1b]0;pwned", "\x1b[2J", "\x1b]52", "\x9b", "\x07"} {
		if strings.Contains(content, bad) {
			t.Errorf("view contains %q", bad)
		}
	}
}

func TestResumeShowsTheConversation(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c", "ls", `{"path":"."}`), pt.Text("the final answer")})
	h.typeText("question one")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	id := h.m.sess.ID
	opt := h.m.opt
	h.m.Close()
	h.wg.Wait()

	opt.SessionID = id
	h.m = New(opt)
	h.run(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.waitFor("the session", func(m *Model) bool { return m.runner != nil })
	h.waitScreen("the final answer")
	s := h.screen()
	for _, want := range []string{"▌ question one", "✓ ls"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed view lacks %q:\n%s", want, s)
		}
	}
	h.key("up")
	if h.m.editor.value() != "question one" {
		t.Errorf("history not restored: %q", h.m.editor.value())
	}
}

func TestNarrowAndResizedScreensFit(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("A reply with a long line " + strings.Repeat("abcdefghij", 20) + "\n\n```\n" + strings.Repeat("x", 150) + "\n```")})
	h.typeText(strings.Repeat("long user text ", 12))
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	for _, size := range [][2]int{{60, 20}, {120, 40}, {60, 12}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		h.waitFor("renders at the width", func(m *Model) bool { return len(m.rc.missing) == 0 })
		lines := strings.Split(h.m.View().Content, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, ansi.Strip(l))
			}
		}
	}
}

func TestLightBackground(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("light **text**")})
	h.send(tea.BackgroundColorMsg{Color: lightColor{}})
	if h.m.th.Dark {
		t.Fatal("theme still dark")
	}
	h.typeText("x")
	h.key("enter")
	h.waitScreen("light text")
}

type lightColor struct{}

func (lightColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestScrollingStopsFollowingAndComesBack(t *testing.T) {
	var steps []pt.Step
	for i := range 12 {
		steps = append(steps, pt.Text(fmt.Sprintf("answer number %d\n\n%s", i, strings.Repeat("line\n\n", 3))))
	}
	h := newHarness(t, steps)
	for i := range 12 {
		h.typeText(fmt.Sprintf("q%d", i))
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == i+1 })
	}
	h.waitScreen("answer number 11")
	h.key("pgup")
	if h.m.chat.follow || strings.Contains(h.screen(), "answer number 11") {
		t.Fatalf("pgup did not scroll:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "scrolled up") {
		t.Errorf("no scrolled-up hint")
	}
	for range 20 {
		h.key("pgdown")
	}
	if !h.m.chat.follow || !strings.Contains(h.screen(), "answer number 11") {
		t.Errorf("pgdown did not come back to the bottom:\n%s", h.screen())
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if h.m.chat.follow {
		t.Errorf("wheel up did not scroll")
	}
}

func TestRetryCountdownAndErrorsSayWhatToDo(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.HTTPError(503, map[string]string{"Retry-After": "7"}, `{"error":{"message":"overloaded","type":"server_error"}}`),
		pt.HTTPError(401, nil, `{"error":{"message":"bad key","type":"invalid_request_error"}}`),
	})
	h.typeText("hi")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	s := h.screen()
	if !strings.Contains(s, "retried (attempt") {
		t.Errorf("no retry marker:\n%s", s)
	}
	if !strings.Contains(s, "✗") || !strings.Contains(s, "OPENAI_API_KEY") {
		t.Errorf("error without what to do:\n%s", s)
	}
}

func TestClickAndCtrlOExpandToolOutput(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c", "bash", `{"command":"seq 1 12"}`),
		pt.Text("counted"),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"bash": tools.ModeAllow} })
	h.typeText("count")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	h.waitScreen("more lines")
	if strings.Contains(h.screen(), "    12") {
		t.Fatalf("collapsed card shows everything:\n%s", h.screen())
	}
	row := -1
	for i, l := range h.m.chat.visible {
		if strings.Contains(ansi.Strip(l), "✓ bash") {
			row = i
		}
	}
	if row < 0 {
		t.Fatalf("no card:\n%s", h.screen())
	}
	h.send(tea.MouseClickMsg{X: 3, Y: row, Button: tea.MouseLeft})
	if !strings.Contains(h.screen(), "    12") {
		t.Errorf("click did not expand:\n%s", h.screen())
	}
	h.send(tea.MouseClickMsg{X: 3, Y: row, Button: tea.MouseLeft})
	if strings.Contains(h.screen(), "    12") {
		t.Errorf("second click did not collapse")
	}
	h.key("ctrl+o")
	if !strings.Contains(h.screen(), "    12") {
		t.Errorf("ctrl+o did not expand:\n%s", h.screen())
	}
}

func TestStreamingTailRendersBeforeTheReplyEnds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("First **block**.\n\nThe tail "), pt.TextChunk("with **bold** words"), pt.Block(release))})
	h.typeText("go")
	h.key("enter")
	h.waitFor("the tail to render while streaming", func(m *Model) bool {
		s := screenOf(m)
		return m.busy && strings.Contains(s, "The tail with bold words") && strings.Contains(s, "First block.")
	})
}

func TestNewConversationIsCreatedByTheFirstMessage(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("first reply"), pt.Text("in the new one")})
	ctx := context.Background()
	count := func() int {
		list, err := h.store.ListSessions(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d sessions before anything was sent", n)
	}
	h.typeText("/model gpt-4o")
	h.key("enter")
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "first reply") })
	if n := count(); n != 1 || h.m.sess.Model != "gpt-4o" {
		t.Fatalf("%d sessions, model %q; want 1 with gpt-4o", n, h.m.sess.Model)
	}
	first := h.m.sess.ID
	h.typeText("/new")
	h.key("enter")
	h.waitFor("the old session to close", func(m *Model) bool { return m.runner == nil && m.fresh })
	if strings.Contains(h.screen(), "first reply") {
		t.Errorf("/new kept the old conversation:\n%s", h.screen())
	}
	if n := count(); n != 1 {
		t.Errorf("/new created a session before a message: %d", n)
	}
	h.typeText("again")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "in the new one") })
	if n := count(); n != 2 || h.m.sess.ID == first {
		t.Errorf("%d sessions after the second conversation", n)
	}
	// The first session can be resumed from /sessions.
	h.typeText("/sessions")
	h.key("enter")
	h.waitScreen("hello")
	h.typeText("hello")
	h.key("enter")
	h.waitFor("the resume", func(m *Model) bool { return m.runner != nil && m.sess.ID == first })
	h.waitScreen("first reply")
}
