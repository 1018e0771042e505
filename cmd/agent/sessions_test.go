package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// listJSON runs `agent sessions --json` with extra arguments.
func (e *env) listJSON(args ...string) []sessionRow {
	e.t.Helper()
	res := e.run("", append([]string{"sessions", "--json"}, args...)...)
	if res.code != 0 {
		e.t.Fatalf("sessions --json: exit %d: %s", res.code, res.stderr)
	}
	var rows []sessionRow
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		e.t.Fatalf("sessions --json: %v: %q", err, res.stdout)
	}
	return rows
}

// dbDigest hashes the database files, to check that a command did not
// write.
func dbDigest(t *testing.T, data string) string {
	t.Helper()
	h := sha256.New()
	for _, name := range []string{"agent.db", "agent.db-wal"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return string(h.Sum(nil))
}

func TestE2ESessionsListShowExportRemove(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_1", "bash", `{"command":"echo hello-from-tool && seq 1 20000"}`),
		pt.Text("The tool said hello-from-tool."),
		pt.Text("Elsewhere answer."),
	)
	if res := e.run("", "run", "--yes", "first task: say hello through bash"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	here := e.work
	e.work = t.TempDir()
	if res := e.run("", "run", "a task in another directory"); res.code != 0 {
		t.Fatalf("run elsewhere: exit %d: %s", res.code, res.stderr)
	}
	e.work = here
	before := dbDigest(t, e.data)

	rows := e.listJSON()
	if len(rows) != 1 {
		t.Fatalf("this directory lists %d sessions, want 1: %+v", len(rows), rows)
	}
	r := rows[0]
	if r.Title != "first task: say hello through bash" || r.Messages != 3 || r.Model != "gpt-4.1" ||
		r.CreatedAt.IsZero() || r.UpdatedAt.Before(r.CreatedAt) || r.Usage.Input == 0 {
		t.Errorf("row = %+v", r)
	}
	if dir, _ := filepath.EvalSymlinks(here); r.Dir != dir {
		t.Errorf("dir = %q, want %q", r.Dir, dir)
	}
	if r.Context == nil || r.Context.Total <= 0 || r.Context.Window != 1047576 || r.Context.Basis != "actual" {
		t.Errorf("context = %+v", r.Context)
	}
	all := e.listJSON("--all")
	if len(all) != 2 || all[1].ID != r.ID || all[0].Title != "a task in another directory" {
		t.Fatalf("--all = %+v, want the other directory's session first", all)
	}
	other := all[0].ID

	text := e.run("", "sessions", "--all")
	for _, want := range []string{"CONTEXT", r.ID, other, "first task: say hello"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("sessions --all lacks %q:\n%s", want, text.stdout)
		}
	}

	show := e.run("", "sessions", "show", strings.ToLower(r.ID[:10]))
	if show.code != 0 {
		t.Fatalf("show: exit %d: %s", show.code, show.stderr)
	}
	for _, want := range []string{"# first task: say hello through bash", "## User", "## Assistant",
		"**Tool `bash`**", "```sh\necho hello-from-tool && seq 1 20000\n```", "Output:", "The tool said hello-from-tool."} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, show.stdout)
		}
	}

	exp := e.run("", "sessions", "export", r.ID, "--json")
	if exp.code != 0 {
		t.Fatalf("export: exit %d: %s", exp.code, exp.stderr)
	}
	var doc sessionExport
	if err := json.Unmarshal([]byte(exp.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var tool *message.ToolState
	for _, m := range doc.Messages {
		for _, p := range m.Parts {
			if p.Type == message.PartTool {
				tool = p.Tool
			}
		}
	}
	if doc.Format != 1 || doc.Session == nil || doc.Session.ID != r.ID || len(doc.Messages) != 3 ||
		tool == nil || !strings.Contains(tool.Output, "hello-from-tool") || tool.CallID != "call_1" {
		t.Fatalf("export = %+v (tool %+v)", doc, tool)
	}
	if _, err := os.Stat(tool.FullOutputPath); !tool.Truncated || err != nil {
		t.Errorf("the long output was not saved: truncated %v, %v", tool.Truncated, err)
	}
	if md := e.run("", "sessions", "export", r.ID); md.code != 0 || !strings.HasPrefix(md.stdout, "# first task") {
		t.Errorf("markdown export: exit %d: %.200q", md.code, md.stdout)
	}
	if after := dbDigest(t, e.data); after != before {
		t.Error("a read-only command changed the database")
	}

	bad := e.run("", "sessions", "show", "ZZZZZZZZ")
	if bad.code != 1 || !strings.Contains(bad.stderr, "no session ZZZZZZZZ") {
		t.Errorf("show unknown: exit %d: %s", bad.code, bad.stderr)
	}
	if res := e.run("", "sessions", "show"); res.code != 2 {
		t.Errorf("show without id: exit %d", res.code)
	}

	// rm: declined, unanswered, confirmed, and --yes.
	no := e.run("n\n", "sessions", "rm", r.ID)
	if no.code != 0 || !strings.Contains(no.stderr, "Delete session "+r.ID+" (first task: say hello through bash)? [y/N]") ||
		!strings.Contains(no.stderr, "kept") {
		t.Errorf("rm declined: exit %d: %s", no.code, no.stderr)
	}
	if eof := e.run("", "sessions", "rm", r.ID); eof.code != 1 || !strings.Contains(eof.stderr, "--yes") {
		t.Errorf("rm unanswered: exit %d: %s", eof.code, eof.stderr)
	}
	if n := len(e.listJSON("--all")); n != 2 {
		t.Fatalf("%d sessions after declining, want 2", n)
	}
	if yes := e.run("y\n", "sessions", "rm", r.ID); yes.code != 0 || !strings.Contains(yes.stderr, "deleted "+r.ID) {
		t.Errorf("rm confirmed: exit %d: %s", yes.code, yes.stderr)
	}
	if res := e.run("", "sessions", "rm", "--yes", other[:8]); res.code != 0 {
		t.Errorf("rm --yes: exit %d: %s", res.code, res.stderr)
	}
	if rows := e.listJSON("--all"); len(rows) != 0 {
		t.Errorf("sessions left after rm: %+v", rows)
	}
	if _, err := os.Stat(tool.FullOutputPath); !os.IsNotExist(err) {
		t.Errorf("the deleted session's saved output is still there (%v)", err)
	}
}

func TestE2ESessionsWithoutDatabase(t *testing.T) {
	e := newEnv(t)
	if rows := e.listJSON("--all"); rows == nil || len(rows) != 0 {
		t.Errorf("rows = %#v, want []", rows)
	}
	if _, err := os.Stat(filepath.Join(e.data, "agent.db")); !os.IsNotExist(err) {
		t.Errorf("listing created the database (%v)", err)
	}
}

func TestE2ESessionsRmRefusesBusySession(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newEnv(t, pt.Reply(pt.TextChunk("working on it"), pt.Block(release)))
	cmd := exec.Command(agentBin, "run", "a long task")
	cmd.Dir, cmd.Env = e.work, e.vars
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	rows := e.listJSON()
	if len(rows) != 1 {
		t.Fatalf("rows = %+v", rows)
	}
	res := e.run("", "sessions", "rm", "--yes", rows[0].ID)
	if res.code != 1 || !strings.Contains(res.stderr, "in use") {
		t.Errorf("rm of a live session: exit %d: %s", res.code, res.stderr)
	}
	cmd.Process.Signal(syscall.SIGINT)
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("run exit = %v, want 130", err)
	}
	if n := len(e.listJSON()); n != 1 {
		t.Errorf("%d sessions after a refused rm, want 1", n)
	}
}

func TestE2ECompletion(t *testing.T) {
	e := newEnv(t, pt.Text("ok"))
	if res := e.run("", "run", "complete me please"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	id := e.listJSON()[0].ID
	for shell, want := range map[string]string{"bash": "__start_agent", "zsh": "#compdef agent", "fish": "complete -c agent"} {
		res := e.run("", "completion", shell)
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("completion %s: exit %d, lacks %q", shell, res.code, want)
		}
	}
	before := dbDigest(t, e.data)
	for _, args := range [][]string{
		{"__complete", "sessions", "show", ""},
		{"__complete", "sessions", "export", id[:4]},
		{"__complete", "run", "--session", ""},
		{"__complete", "context", "--session", ""},
	} {
		res := e.run("", args...)
		if res.code != 0 || !strings.Contains(res.stdout, id+"\tcomplete me please") {
			t.Errorf("%v: exit %d:\n%s%s", args, res.code, res.stdout, res.stderr)
		}
	}
	if res := e.run("", "__complete", "sessions", "rm", id, ""); strings.Contains(res.stdout, id) {
		t.Errorf("rm offers an id already given:\n%s", res.stdout)
	}
	if res := e.run("", "__complete", "sessions", "show", "ZZZ"); strings.Contains(res.stdout, id) {
		t.Errorf("a non-matching prefix completes:\n%s", res.stdout)
	}
	if dbDigest(t, e.data) != before {
		t.Error("completion changed the database")
	}
}

func TestE2ETitleFromSmallModel(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.home, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"small_model":"gpt-4.1-mini"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, "AGENT_CONFIG="+cfg)
	e.srv.Handle(func(req pt.Request) pt.Step {
		if req.Chat.Model == "gpt-4.1-mini" {
			return pt.Text("Greeting Exchange")
		}
		return pt.Text("Hello!")
	})
	res := e.run("", "run", "--format", "json", "hi there, how are you")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	var done map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &done); err != nil || done["type"] != "done" {
		t.Fatalf("last event %q", lines[len(lines)-1])
	}
	if done["title"] != "Greeting Exchange" {
		t.Errorf("done title = %v", done["title"])
	}
	if rows := e.listJSON(); len(rows) != 1 || rows[0].Title != "Greeting Exchange" {
		t.Errorf("rows = %+v", rows)
	}
}

func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no example in its --help", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

func TestTranscript(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	long := strings.Repeat("line\n", 30) + "end"
	sess := &message.Session{ID: "01SESSION", Title: "a title", Model: "m", Dir: "/w", CreatedAt: at, UpdatedAt: at}
	hist := []message.Entry{
		{Message: message.Message{Role: message.RoleUser, CreatedAt: at}, Parts: []message.Part{{Type: message.PartText, Text: "do it"}}},
		{Message: message.Message{Role: message.RoleAssistant, Model: "m", CreatedAt: at}, Parts: []message.Part{
			{Type: message.PartStepStart},
			{Type: message.PartReasoning, Text: "thinking hard"},
			{Type: message.PartTool, Tool: &message.ToolState{Name: "read", Status: message.ToolCompleted, Input: `{"path":"a.go"}`,
				Output: "has ``` fences\n" + long, CompactedAt: at, Truncated: true, FullOutputPath: "/out/1"}},
			{Type: message.PartStepFinish, Step: &message.StepState{FinishReason: "tool_calls"}},
		}},
		{Message: message.Message{Role: message.RoleUser, Synthetic: true, CreatedAt: at}, Parts: []message.Part{
			{Type: message.PartCompaction, Compaction: &message.CompactionState{Auto: true, Reason: "overflow", TokensBefore: 9000, TokensAfter: 2000}}}},
		{Message: message.Message{Role: message.RoleAssistant, Summary: true, Model: "small", CreatedAt: at}, Parts: []message.Part{
			{Type: message.PartText, Text: "## Goal\nthe summary"}}},
	}
	render := func(full bool) string {
		var b bytes.Buffer
		if err := writeTranscript(&b, sess, hist, transcriptOptions{full: full}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	short := render(false)
	for _, want := range []string{
		"# a title", "`01SESSION`", "## User · ", "do it", "> **Reasoning**\n>\n> thinking hard",
		"**Tool `read`** · completed", "\"path\": \"a.go\"", "````\nhas ``` fences\n", "more characters (12 lines) not shown",
		"saved to `/out/1`", "_Pruned from the model's context on ", "**Compaction** (automatic, overflow)", "9000 → 2000 tokens",
		"## Summary · small", "the summary",
	} {
		if !strings.Contains(short, want) {
			t.Errorf("transcript lacks %q:\n%s", want, short)
		}
	}
	if strings.Contains(short, "\nend\n") || strings.Contains(short, "step-") {
		t.Errorf("short transcript shows clipped output or step parts:\n%s", short)
	}
	if full := render(true); !strings.Contains(full, "\nend\n````") || strings.Contains(full, "not shown") {
		t.Errorf("full transcript is clipped:\n%s", full)
	}
}

func TestClipKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", clipChars) // two bytes each
	kept, omitted := clip(s, false)
	if !strings.HasPrefix(s, kept) || len(kept) > clipChars || omitted == "" || strings.ContainsRune(kept, '\uFFFD') {
		t.Errorf("clip kept %d bytes, omitted %q", len(kept), omitted)
	}
	if kept, omitted := clip("short", false); kept != "short" || omitted != "" {
		t.Errorf("clip(short) = %q, %q", kept, omitted)
	}
}

func TestSanitisingWriterStripsControls(t *testing.T) {
	var b bytes.Buffer
	w := sanitisingWriter{&b}
	in := "title \x1b]52;c;cGF3bmVk\x07 and \x1b[2J done\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), "done\n") {
		t.Errorf("wrote %q", b.String())
	}
}

func TestEventWriterEndsWithOneDone(t *testing.T) {
	var out bytes.Buffer
	w := newEventWriter(&out, &out, "json")
	w.observe(message.Event{Type: message.EventError, Err: "boom"})
	w.fail(errors.New("boom"))
	w.observe(message.Event{Type: message.EventError, Err: "after the end"})
	w.fail(errors.New("again"))
	evs := jsonEvents(t, out.String())
	if len(evs) != 2 || evs[0]["type"] != "error" || evs[1]["type"] != "done" || evs[1]["error"] != "boom" {
		t.Errorf("events = %v", evs)
	}
}
