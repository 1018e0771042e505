package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/tools"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: checkpoints need it")
	}
}

// allowWrites lets write, edit and bash run without asking.
func allowWrites(o *Options) {
	o.PermModes = map[string]tools.Mode{"write": tools.ModeAllow, "edit": tools.ModeAllow, "bash": tools.ModeAllow}
}

// twoWrites is a turn that reads a.txt (which holds "one\n" before),
// overwrites it and creates b.txt, then answers: three requests.
func twoWrites() []pt.Step {
	return []pt.Step{
		pt.ToolCall("r1", "read", `{"path":"a.txt"}`),
		pt.ToolCalls(
			pt.Call{ID: "w1", Name: "write", Args: `{"path":"a.txt","content":"two\n"}`},
			pt.Call{ID: "w2", Name: "write", Args: `{"path":"b.txt","content":"new\n"}`},
		),
		pt.Text("wrote both"),
	}
}

func readOr(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// sendTurn sends text and waits for the turn, and its patch, to land.
func (h *harness) sendTurn(text string, requests int) {
	h.t.Helper()
	h.typeText(text)
	h.key("enter")
	h.waitFor("the turn to end", func(m *Model) bool { return sendSettled(m) && len(h.srv.Requests()) == requests })
}

func (h *harness) command(text string) {
	h.t.Helper()
	h.typeText(text)
	h.key("enter")
}

// userTexts are the user messages the conversation shows.
func userTexts(m *Model) []string {
	var out []string
	for _, it := range m.chat.items {
		if u, ok := it.(*userItem); ok {
			out = append(out, u.text)
		}
	}
	return out
}

func itemIndex[T item](m *Model) int {
	for i, it := range m.chat.items {
		if _, ok := it.(T); ok {
			return i
		}
	}
	return -1
}

func TestUndoRestoresTheFilesAndPutsTheMessageBackThenRedo(t *testing.T) {
	needGit(t)
	h := newHarness(t, twoWrites(), allowWrites)
	a, b := filepath.Join(h.dir, "a.txt"), filepath.Join(h.dir, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h.sendTurn("change both files", 3)
	if readOr(t, a) != "two\n" || readOr(t, b) != "new\n" {
		t.Fatalf("the turn did not write: a=%q b=%q", readOr(t, a), readOr(t, b))
	}
	// The step's patch shows under its tool cards, before the answer.
	h.waitScreen("± changed 2 files +2 −1")
	patch, answer := itemIndex[*patchItem](h.m), -1
	for i, it := range h.m.chat.items {
		if ti, ok := it.(*textItem); ok && strings.Contains(ti.doc.text(), "wrote both") {
			answer = i
		}
	}
	if patch < 0 || answer < 0 || patch > answer {
		t.Errorf("patch line at %d, answer at %d: want the patch under the tool cards", patch, answer)
	}

	h.command("/undo")
	h.waitFor("the undo", func(m *Model) bool { return m.editor.value() == "change both files" })
	if got := readOr(t, a); got != "one\n" {
		t.Errorf("a.txt = %q after /undo, want %q", got, "one\n")
	}
	if got := readOr(t, b); got != "<missing>" {
		t.Errorf("b.txt = %q after /undo, want it removed", got)
	}
	s := h.screen()
	for _, want := range []string{"undo: took back the last turn", "restored 2 file(s)", "a.txt (put back)", "b.txt (removed)", "Your message is back in the editor"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if u := userTexts(h.m); len(u) != 0 {
		t.Errorf("the undone message is still shown: %q", u)
	}
	if itemIndex[*patchItem](h.m) >= 0 || strings.Contains(s, "wrote both") {
		t.Errorf("the undone turn's items are still shown:\n%s", s)
	}

	h.key("ctrl+c") // clears the editor, to type the command
	h.command("/redo")
	h.waitScreen("redo: brought back")
	if readOr(t, a) != "two\n" || readOr(t, b) != "new\n" {
		t.Errorf("redo: a=%q b=%q", readOr(t, a), readOr(t, b))
	}
	if u := userTexts(h.m); len(u) != 1 || u[0] != "change both files" {
		t.Errorf("after /redo the conversation shows %q", u)
	}
}

func TestDiffShowsTheTurnsFilesInAnOverlay(t *testing.T) {
	needGit(t)
	h := newHarness(t, twoWrites(), allowWrites)
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("one\n"), 0o644)
	h.sendTurn("change both files", 3)

	h.command("/diff")
	h.waitFor("the diff overlay", func(m *Model) bool { _, ok := m.drawer.(*diffDrawer); return ok })
	s := h.screen()
	for _, want := range []string{"Diff of turn 1", "2 files changed +2 −1", "a.txt  modified", "b.txt  added", "one", "two", "new"} {
		if !strings.Contains(s, want) {
			t.Errorf("/diff lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "index ") || strings.Contains(s, "diff --git") {
		t.Errorf("/diff shows git's header lines:\n%s", s)
	}
	h.key("esc")
	if h.m.drawer != nil {
		t.Fatal("esc did not close the overlay")
	}
	h.command("/diff 1")
	h.waitFor("the diff of turn 1", func(m *Model) bool { _, ok := m.drawer.(*diffDrawer); return ok })
	h.key("esc")
	h.command("/diff 7")
	h.waitScreen("no turn 7")
}

func TestRewindConversationOnlyKeepsTheFiles(t *testing.T) {
	needGit(t)
	h := newHarness(t, append(twoWrites(), pt.Text("second answer")), allowWrites)
	a := filepath.Join(h.dir, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h.sendTurn("first turn", 3)
	h.sendTurn("second turn", 4)

	h.command("/rewind")
	h.waitScreen("Rewind: take the session back")
	s := h.screen()
	if !strings.Contains(s, "2. second turn") || !strings.Contains(s, "1. first turn") || !strings.Contains(s, "2 files +2 −1") {
		t.Errorf("picker:\n%s", s)
	}
	h.key("down") // newest first: down is turn 1
	h.key("enter")
	h.waitScreen("Rewind to before turn 1")
	if !strings.Contains(h.screen(), "files changed since: a.txt, b.txt") {
		t.Errorf("mode choice does not name the files:\n%s", h.screen())
	}
	h.key("down") // conversation only
	h.key("enter")
	h.waitFor("the rewind", func(m *Model) bool { return m.editor.value() == "first turn" })
	if got := readOr(t, a); got != "two\n" {
		t.Errorf("a.txt = %q after a conversation-only rewind, want the turn's content kept", got)
	}
	if u := userTexts(h.m); len(u) != 0 {
		t.Errorf("rewound messages still shown: %q", u)
	}
	if !strings.Contains(h.screen(), "rewind (conversation only): took back") {
		t.Errorf("no notice:\n%s", h.screen())
	}
	if turns := loop.Turns(h.m.runner.History()); len(turns) != 0 {
		t.Errorf("%d turns left in the runner's history", len(turns))
	}
	// Kept in the database, marked.
	hist, err := h.store.LoadHistory(context.Background(), h.m.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, e := range hist {
		if e.Message.Rewound() {
			marked++
		}
	}
	if marked == 0 {
		t.Error("no message marked rewound in the database")
	}
}

func TestForkSwitchesToTheCopy(t *testing.T) {
	needGit(t)
	h := newHarness(t, append(twoWrites(), pt.Text("second answer")), allowWrites)
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("one\n"), 0o644)
	h.sendTurn("first turn", 3)
	h.sendTurn("second turn", 4)
	orig := h.m.sess.ID

	h.command("/fork")
	h.waitScreen("Fork: copy the conversation")
	h.key("down") // past "all of it": the newest turn, then turn 1
	h.key("down")
	h.key("enter")
	h.waitFor("the fork to open", func(m *Model) bool { return m.runner != nil && m.sess.ID != orig && !m.opening })
	fork := h.m.sess.ID
	h.waitScreen("forked session " + orig + " into " + fork)
	if u := userTexts(h.m); len(u) != 1 || u[0] != "first turn" {
		t.Errorf("the fork shows %q, want the first turn only", u)
	}
	if itemIndex[*patchItem](h.m) < 0 {
		t.Error("the fork lost the first turn's patch line")
	}
	list, err := h.store.ListSessions(context.Background(), h.dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions: %d (%v)", len(list), err)
	}
	// The original is untouched.
	hist, _ := h.store.LoadHistory(context.Background(), orig)
	if n := len(loop.Turns(hist)); n != 2 {
		t.Errorf("the original has %d turns, want 2", n)
	}
}

func TestUndoAsksBeforeOverwritingAnOutsideChange(t *testing.T) {
	needGit(t)
	h := newHarness(t, twoWrites(), allowWrites)
	a := filepath.Join(h.dir, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h.sendTurn("change both files", 3)
	os.WriteFile(a, []byte("mine\n"), 0o644)

	h.command("/undo")
	h.waitScreen("files changed outside the agent")
	if s := h.screen(); !strings.Contains(s, "modified  a.txt") || !strings.Contains(s, "restore anyway") {
		t.Errorf("dialog:\n%s", s)
	}
	h.key("esc")
	h.waitScreen("undo cancelled: no file was touched")
	if got := readOr(t, a); got != "mine\n" {
		t.Errorf("cancel touched a.txt: %q", got)
	}
	if u := userTexts(h.m); len(u) != 1 {
		t.Errorf("cancel took the turn back: %q", u)
	}

	// Enter right away takes the default, which is cancel: an unread
	// dialog never overwrites the user's edit.
	h.command("/undo")
	h.waitScreen("files changed outside the agent")
	h.key("enter")
	h.waitScreen("undo cancelled: no file was touched")
	if got := readOr(t, a); got != "mine\n" {
		t.Errorf("Enter on the dialog restored a.txt: %q", got)
	}

	h.command("/undo")
	h.waitScreen("files changed outside the agent")
	h.key("r") // typing does not answer it
	if _, ok := h.m.drawer.(*outsideDrawer); !ok {
		t.Fatalf("a plain key closed the dialog: %T", h.m.drawer)
	}
	h.key("alt+r")
	h.waitFor("the forced undo", func(m *Model) bool { return m.editor.value() == "change both files" })
	if got := readOr(t, a); got != "one\n" {
		t.Errorf("a.txt = %q after restore anyway", got)
	}
	if got := readOr(t, filepath.Join(h.dir, "b.txt")); got != "<missing>" {
		t.Errorf("b.txt = %q after restore anyway", got)
	}
}

func TestCheckpointCommandsWaitForTheTurn(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("working"), pt.Block(release))})
	h.command("/undo")
	h.waitScreen("nothing to undo yet")
	h.sendTurnAsync("go")
	h.waitFor("busy", func(m *Model) bool { return m.busy })
	for _, c := range []string{"/undo", "/redo", "/rewind", "/diff", "/fork"} {
		h.command(c)
		h.waitScreen("the agent is busy")
		if h.m.drawer != nil {
			t.Errorf("%s opened %T while busy", c, h.m.drawer)
		}
	}
}

func (h *harness) sendTurnAsync(text string) {
	h.t.Helper()
	h.typeText(text)
	h.key("enter")
}

func TestCheckpointsOffIsNotedOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no git
	h := newHarness(t, []pt.Step{pt.Text("one"), pt.Text("two")})
	h.sendTurn("hello", 1)
	h.waitScreen("checkpoints are off: git is not installed")
	h.sendTurn("again", 2)
	if n := strings.Count(h.screen(), "checkpoints are off"); n != 1 {
		t.Errorf("the note is shown %d times:\n%s", n, h.screen())
	}
	h.command("/diff")
	h.waitScreen("diff: checkpoints are off")
}

func TestPatchLineExpandsToTheFiles(t *testing.T) {
	th := newTheme(true)
	rc := &renderCtx{width: 80, th: th}
	it := &patchItem{state: message.PatchState{Files: []message.PatchFile{
		{Path: "a.go", Status: "modified", LinesAdded: 3, LinesDeleted: 1},
		{Path: "logo.png", Status: "added", Binary: true},
		{Path: "run.sh", Status: "modified", OldMode: "100644", NewMode: "100755"},
	}, Skipped: []message.PatchSkip{{Path: "big.bin", Reason: snapshot.ReasonTooLarge}}}}
	collapsed := strip(it.lines(rc))
	if len(collapsed) != 2 || !strings.Contains(collapsed[0], "± changed 3 files +3 −1, 1 path not snapshotted") {
		t.Errorf("collapsed: %q", collapsed)
	}
	it.toggle()
	expanded := strings.Join(strip(it.lines(rc)), "\n")
	for _, want := range []string{"modified  a.go", "+3 −1", "logo.png", "binary", "mode 100644 → 100755", "not snapshotted: big.bin (larger than the size limit)"} {
		if !strings.Contains(expanded, want) {
			t.Errorf("expanded lacks %q:\n%s", want, expanded)
		}
	}
}

func TestSplitPatchDropsGitHeaders(t *testing.T) {
	text := "diff --git a/a.txt b/a.txt\nindex 1111..2222 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n" +
		"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000..3333\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n"
	got := splitPatch(text)
	if len(got) != 3 {
		t.Fatalf("%d parts: %q", len(got), got)
	}
	if !strings.HasPrefix(got[0], "--- a/a.txt\n") || strings.Contains(got[0], "index") || !hasHunk(got[0]) {
		t.Errorf("part 1: %q", got[0])
	}
	if got[1] != "" || hasHunk(got[1]) {
		t.Errorf("mode-only part: %q", got[1])
	}
	if !strings.HasSuffix(got[2], "+new\n") || strings.Contains(got[2], "new file mode") {
		t.Errorf("part 3: %q", got[2])
	}
}

func TestRewindSummarySaysWhatWasDone(t *testing.T) {
	rr := &snapshot.RestoreResult{
		Restored:    []snapshot.FileChange{{Path: "a.txt", Status: snapshot.Modified}},
		NotRestored: []snapshot.Skip{{Path: "big.bin", Reason: snapshot.ReasonTooLarge}},
	}
	for _, c := range []struct {
		op, mode string
		res      *loop.RewindResult
		want     []string
		hint     string
	}{
		{"undo", "", &loop.RewindResult{Messages: []string{"1", "2"}, UserText: "do it", Restore: rr},
			[]string{"undo: took back the last turn (2 messages", "restored 1 file(s)", "a.txt (put back)", "not restored: 1 path(s)", "big.bin: larger than the size limit"}, "back in the editor"},
		{"rewind", message.RewindConversation, &loop.RewindResult{Messages: []string{"1"}, UserText: "x"},
			[]string{"rewind (conversation only): took back 1 message", "the files stay as they are"}, "back in the editor"},
		{"rewind", message.RewindCode, &loop.RewindResult{Restore: rr},
			[]string{"rewind (code only): the conversation stays", "restored 1 file(s)"}, "/redo takes this back"},
		{"undo", "", &loop.RewindResult{Messages: []string{"1"}, UserText: "x", FilesNote: "no file changed since that message"},
			[]string{"files not restored: no file changed since that message"}, "back in the editor"},
		{"redo", "", &loop.RewindResult{Messages: []string{"1", "2", "3"}},
			[]string{"redo: brought back 3 messages"}, ""},
	} {
		text, hint := rewindSummary(c.op, c.mode, c.res)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %s: %q lacks %q", c.op, c.mode, text, w)
			}
		}
		if !strings.Contains(hint, c.hint) || (c.hint == "" && hint != "") {
			t.Errorf("%s %s: hint %q, want %q", c.op, c.mode, hint, c.hint)
		}
	}
}

func strip(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = ansi.Strip(l)
	}
	return out
}

// TestMessageSentDuringAnUndoWaitsForIt: a message sent while an undo
// runs is sent once it is done, not queued behind a runner that has no
// turn to take it.
func TestMessageSentDuringAnUndoWaitsForIt(t *testing.T) {
	needGit(t)
	h := newHarness(t, append(twoWrites(), pt.Text("answered the next one")), allowWrites)
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("one\n"), 0o644)
	h.sendTurn("change both files", 3)
	h.command("/undo") // its result waits in the harness until waitFor
	h.command("next one")
	h.waitFor("the next turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 4 })
	h.waitScreen("answered the next one")
	if q, _ := h.m.runner.Queue(context.Background()); len(q) != 0 {
		t.Errorf("the message was left queued: %+v", q)
	}
	if u := userTexts(h.m); len(u) != 1 || u[0] != "next one" {
		t.Errorf("conversation shows %q, want the undone turn gone and the next one", u)
	}
}

// TestDiffOverlayScrollsWithPageKeys: pgdn and pgup scroll the diff,
// not the conversation behind it.
func TestDiffOverlayScrollsWithPageKeys(t *testing.T) {
	h := newHarness(t, nil)
	var b strings.Builder
	b.WriteString("diff --git a/long.txt b/long.txt\nindex 1..2 100644\n--- a/long.txt\n+++ b/long.txt\n@@ -0,0 +1,100 @@\n")
	for i := 1; i <= 100; i++ {
		b.WriteString("+line number " + strconv.Itoa(i) + "\n")
	}
	h.m.drawer = &diffDrawer{d: &loop.TurnDiff{Turn: loop.Turn{N: 1, Text: "grow"}, Patch: &snapshot.Patch{
		Files: []snapshot.FileChange{{Path: "long.txt", Status: snapshot.Modified, LinesAdded: 100}}, Text: b.String()}}}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := h.screen(); !strings.Contains(s, "line number 1 ") || strings.Contains(s, "line number 40") {
		t.Fatalf("first page:\n%s", s)
	}
	h.key("pgdown")
	h.key("pgdown")
	s := h.screen()
	if strings.Contains(s, "line number 2 ") || !strings.Contains(s, "line number 40") {
		t.Errorf("pgdn did not scroll the diff:\n%s", s)
	}
	if !h.m.chat.follow {
		t.Error("pgdn scrolled the conversation")
	}
	h.key("pgup")
	h.key("pgup")
	h.key("pgup")
	if s := h.screen(); !strings.Contains(s, "lines 1–") {
		t.Errorf("pgup did not go back to the top:\n%s", s)
	}
}

// TestPatchLineSaysWhatCannotComeBack (issue 26): the patch line counts
// the changes no undo restores and those not the agent's; expanded, it
// names them ("not restorable: big.bin (3 MB > 2 MB, deleted)").
func TestPatchLineSaysWhatCannotComeBack(t *testing.T) {
	th := newTheme(true)
	rc := &renderCtx{width: 100, th: th}
	it := &patchItem{state: message.PatchState{
		Files: []message.PatchFile{{Path: "out.txt", Status: "added", LinesAdded: 1}, {Path: "gen.go", Status: "added", Unsure: "changed while the step's shell command ran, which does not name it"}},
		Lost: []message.PatchSkip{
			{Path: "big.bin", Reason: snapshot.ReasonTooLarge, Bytes: 3 << 20, Limit: 2 << 20, Status: "deleted"},
			{Path: ".env.big", Reason: snapshot.ReasonIgnoredTooLarge, Bytes: 3 << 10, Limit: 1 << 10, Status: "deleted"},
			{Path: "vendor/lib", Reason: snapshot.ReasonNested, Status: "modified"},
		},
		Outside: []message.PatchOutside{{Path: "b.txt", Status: "added", Session: "01SESSIONB", Why: "changed while session 01SESSIONB ran a tool"}},
	}}
	collapsed := strip(it.lines(rc))
	if !strings.Contains(collapsed[0], "± changed 2 files +1 −0, 3 not restorable, 1 not the agent's") {
		t.Errorf("collapsed: %q", collapsed)
	}
	it.toggle()
	expanded := strings.Join(strip(it.lines(rc)), "\n")
	for _, want := range []string{
		"not restorable: big.bin (3 MB > 2 MB, deleted)", "not restorable: .env.big (ignored, 3 KB > 1 KB, deleted)",
		"not restorable: vendor/lib (nested repository, modified)", "not the agent's: b.txt (added, by session 01SESSIONB)",
		"(unsure: undo asks)",
	} {
		if !strings.Contains(expanded, want) {
			t.Errorf("expanded lacks %q:\n%s", want, expanded)
		}
	}
}
