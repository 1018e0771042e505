package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	usercmd "github.com/ctxloop/agent/internal/commands"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// customDirs makes a project commands directory (in the harness's
// directory) and a user one, with the catalog over both.
func customDirs(t *testing.T, files map[string]string) harnessOption {
	t.Helper()
	user := t.TempDir()
	return func(o *Options) {
		project := filepath.Join(o.Loop.Dir, ".agent", "commands")
		for name, body := range files {
			path := filepath.Join(project, name)
			if rest, ok := strings.CutPrefix(name, "user:"); ok {
				path = filepath.Join(user, rest)
			}
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o.Commands = usercmd.NewCatalog(usercmd.Roots{Dir: o.Loop.Dir, UserDir: user}, CommandNames())
	}
}

func lastUserText(h *harness, req int) string {
	msgs := h.srv.Requests()[req].Chat.Messages
	return msgs[len(msgs)-1].Content
}

// TestCustomCommandCompletesAndExpands: "/" offers the custom commands
// with their hint, description and source; tab completes one; sending
// "/name args" sends the expanded body (its @mention attached as for
// typed text), and the history keeps what was typed.
func TestCustomCommandCompletesAndExpands(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("reviewed"), pt.Text("committed")}, customDirs(t, map[string]string{
		"review.md":     "---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\nReview $1 with a focus on $2. See @notes.md.",
		"git/commit.md": "Write a commit message for: $ARGUMENTS",
		"user:hello.md": "# Say hello\nHello!",
	}))
	if h.m.custom.loaded || h.m.custom.scanning {
		t.Fatal("the commands were read before any use")
	}
	os.WriteFile(filepath.Join(h.dir, "notes.md"), []byte("the secret notes\n"), 0o644)
	h.typeText("/re")
	h.waitScreen("/review [file] [focus]")
	s := h.screen()
	if !strings.Contains(s, "Review a file · project") || !strings.Contains(s, "/redo") {
		t.Fatalf("popup:\n%s", s)
	}
	h.key("esc")
	h.m.editor.reset()
	h.typeText("/g")
	h.waitScreen("/git:commit")
	h.key("tab")
	if v := h.m.editor.value(); v != "/git:commit" {
		t.Fatalf("tab completed to %q", v)
	}
	h.m.editor.reset()

	h.typeText(`/review main.go "error handling"`)
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	got := lastUserText(h, 0)
	if !strings.HasPrefix(got, "Review main.go with a focus on error handling. See @notes.md.") || !strings.Contains(got, "the secret notes") {
		t.Errorf("sent %q", got)
	}
	if hist := h.m.editor.history; len(hist) != 1 || hist[0] != `/review main.go "error handling"` {
		t.Errorf("history = %q", hist)
	}

	h.typeText("/git:commit fix the parser")
	h.key("enter")
	h.waitFor("the second reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if got := lastUserText(h, 1); got != "Write a commit message for: fix the parser" {
		t.Errorf("sent %q", got)
	}
}

// TestCustomCommandFromThePopupWithoutArguments: enter on a command with
// no argument hint sends it; on one with a hint, completes it for the
// arguments.
func TestCustomCommandFromThePopupWithoutArguments(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hi there")}, customDirs(t, map[string]string{
		"user:hello.md": "# Say hello\nHello!",
		"fixit.md":      "---\nargument-hint: <what>\n---\nFix $ARGUMENTS",
	}))
	h.typeText("/fixi")
	h.waitScreen("/fixit <what>")
	h.key("enter")
	if v := h.m.editor.value(); v != "/fixit " {
		t.Fatalf("enter on a command with arguments: editor %q", v)
	}
	h.m.editor.reset()
	h.typeText("/hell")
	h.waitScreen("Say hello · user")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	if got := lastUserText(h, 0); got != "# Say hello\nHello!" {
		t.Errorf("sent %q", got)
	}
}

// TestCustomCommandsInHelp: /help lists them with their source, says the
// user's command overrides the project's of the same name and lists the
// project's as shadowed (hardening 2, item 9a), and a built-in's name
// taken by a file is a notice shown once.
func TestCustomCommandsInHelp(t *testing.T) {
	h := newHarness(t, nil, customDirs(t, map[string]string{
		"review.md":       "---\ndescription: Review (project)\n---\nx",
		"help.md":         "shadowed",
		"user:review.md":  "the user's review",
		"user:explain.md": "---\ndescription: Explain \x1b]52;c;aGk=\x07it\n---\nExplain",
	}))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 80})
	h.typeText("/help")
	h.key("enter")
	h.waitScreen("Custom commands")
	h.waitScreen("/review")
	s := h.screen()
	for _, want := range []string{"the user's review · user, overrides project", "Review (project) · project, shadowed by yours", "Explain it · user"} {
		if !strings.Contains(s, want) {
			t.Errorf("help lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\x1b]52") {
		t.Error("an escape from a description reached the screen")
	}
	notice := "custom command /help (" + filepath.Join(h.dir, ".agent", "commands", "help.md") + ") is not used: /help is a built-in command"
	if !strings.Contains(s, "is not used: /help is a") {
		t.Errorf("no clash notice:\n%s", s)
	}
	h.key("esc")
	// Another scan: the notice is not repeated.
	h.typeText("/")
	h.waitFor("a second scan", func(m *Model) bool { return !m.custom.scanning })
	h.key("esc")
	h.m.editor.reset()
	h.typeText("/help")
	h.key("enter")
	h.waitFor("a third scan", func(m *Model) bool { return !m.custom.scanning })
	count := 0
	for _, it := range h.m.chat.items {
		if n, ok := it.(*noticeItem); ok && n.text == notice {
			count++
		}
	}
	if count != 1 {
		t.Errorf("clash notice shown %d times", count)
	}
}

// TestHelpScrollsToTheCustomCommands: on a short screen the help scrolls.
func TestHelpScrollsToTheCustomCommands(t *testing.T) {
	h := newHarness(t, nil, customDirs(t, map[string]string{"zzz-last.md": "---\ndescription: the very last\n---\nx"}))
	h.typeText("/help")
	h.key("enter")
	h.waitFor("the scan", func(m *Model) bool { return m.custom.loaded })
	if strings.Contains(h.screen(), "the very last") {
		t.Fatalf("a 30-row screen shows the whole help?\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "scroll") {
		t.Errorf("the footer does not say it scrolls:\n%s", h.screen())
	}
	for range 5 {
		h.key("pgdown")
	}
	if !strings.Contains(h.screen(), "the very last") {
		t.Errorf("pgdown did not reach the end:\n%s", h.screen())
	}
}

// TestUnknownCommandWithCatalog: a name no file has still gives the
// error, and the text stays.
func TestUnknownCommandWithCatalog(t *testing.T) {
	h := newHarness(t, nil, customDirs(t, map[string]string{"known.md": "x"}))
	h.typeText("/nonsense here")
	h.key("enter")
	h.waitScreen("unknown command /nonsense")
	if v := h.m.editor.value(); v != "/nonsense here" {
		t.Errorf("editor = %q", v)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

// TestCustomCommandPickedUpWithoutRestart: a file written after the
// chat started is usable.
func TestCustomCommandPickedUpWithoutRestart(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("ok")}, customDirs(t, map[string]string{"a.md": "first"}))
	h.typeText("/")
	h.waitFor("the scan", func(m *Model) bool { return m.custom.loaded })
	h.m.editor.reset()
	os.WriteFile(filepath.Join(h.dir, ".agent", "commands", "later.md"), []byte("written later: $1"), 0o644)
	h.typeText("/later now")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	if got := lastUserText(h, 0); got != "written later: now" {
		t.Errorf("sent %q", got)
	}
}

// TestCustomCommandQueuedWhileBusy: tab while the agent works queues the
// expanded command for after the turn.
func TestCustomCommandQueuedWhileBusy(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, []pt.Step{
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "bash", `{"command":"echo hi"}`, 1),
			pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("first turn done"),
		pt.Text("docs done"),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"bash": tools.ModeAllow} },
		customDirs(t, map[string]string{"docs.md": "Update the docs for $ARGUMENTS."}))
	h.typeText("start")
	h.key("enter")
	h.waitFor("busy", func(m *Model) bool { return m.busy && len(h.srv.Requests()) == 1 })
	h.typeText("/docs the parser")
	h.key("tab")
	h.waitScreen("1 queued")
	close(release)
	h.waitFor("two turns", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 3 })
	if got := lastUserText(h, 2); got != "Update the docs for the parser." {
		t.Errorf("the queued turn starts with %q", got)
	}
}

// TestPopupKeepsTheSelectionInView: with many commands the popup shows a
// window that follows the selection.
func TestPopupKeepsTheSelectionInView(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("cmd%02d.md", i)] = fmt.Sprintf("---\ndescription: number %02d\n---\nx", i)
	}
	h := newHarness(t, nil, customDirs(t, files))
	h.typeText("/cmd")
	h.waitScreen("number 00")
	if s := h.screen(); strings.Contains(s, "number 12") || !strings.Contains(s, "1 of 60") {
		t.Fatalf("popup not windowed:\n%s", s)
	}
	for range 40 {
		h.key("down")
	}
	s := h.screen()
	if !strings.Contains(s, "number 40") || strings.Contains(s, "number 00") || !strings.Contains(s, "41 of 60") {
		t.Errorf("the selection left the window:\n%s", s)
	}
	h.key("tab")
	if v := h.m.editor.value(); v != "/cmd40" {
		t.Errorf("tab completed to %q", v)
	}
}

func TestPopupWindow(t *testing.T) {
	for _, tc := range []struct{ n, sel, size, first, last int }{
		{5, 0, 12, 0, 5},
		{30, 0, 12, 0, 12},
		{30, 10, 12, 4, 16},
		{30, 29, 12, 18, 30},
		{30, 5, 1, 5, 6},
	} {
		if f, l := popupWindow(tc.n, tc.sel, tc.size); f != tc.first || l != tc.last {
			t.Errorf("popupWindow(%d, %d, %d) = %d, %d; want %d, %d", tc.n, tc.sel, tc.size, f, l, tc.first, tc.last)
		}
	}
}
