package main

import (
	"encoding/json"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ECompactDryRunAndEdit: `agent compact --dry-run` sends no request
// and names the range the compaction then summarises; `agent compact
// --edit` reads the new summary from stdin and the next run carries it;
// `agent pins` lists a session's pins (none here).
func TestE2ECompactDryRunAndEdit(t *testing.T) {
	summary := "## Goal\nShip.\n\n## Standing user instructions and constraints\nUse tabs.\n\n## Done so far\nNone.\n\n## Files touched\nNone.\n\n## Current state\nNone.\n\n## Next steps\nNone."
	e := newEnv(t,
		pt.Text(strings.Repeat("first answer ", 200)),
		pt.Text(strings.Repeat("second answer ", 200)),
		pt.Text(strings.Repeat("third answer ", 200)),
	)
	for i, q := range []string{"always use tabs", "second", "third"} {
		args := []string{"run", "-c", q}
		if i == 0 {
			args = []string{"run", q}
		}
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("run: %d %s", res.code, res.stderr)
		}
	}
	res := e.run("", "compact", "-c", "--dry-run", "--json")
	if res.code != 0 {
		t.Fatalf("dry run: %d %s", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Fatalf("the dry run sent %d requests", n-3)
	}
	var p compactDryRunOutput
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p.Nothing || p.SummariseMessages == 0 || p.After >= p.Total || len(p.UserMessages) == 0 {
		t.Fatalf("dry run = %s", res.stdout)
	}
	text := e.run("", "compact", "-c", "--dry-run")
	for _, want := range []string{"no request sent", "Summarise", "Keep verbatim", "Estimated total after"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("dry run text lacks %q:\n%s", want, text.stdout)
		}
	}
	if bad := e.run("", "compact", "-c", "--json"); bad.code != exitUsage {
		t.Errorf("--json without --dry-run: exit %d", bad.code)
	}

	e.srv.Add(pt.Text(summary))
	if res := e.run("", "compact", "-c"); res.code != 0 {
		t.Fatalf("compact: %d %s", res.code, res.stderr)
	}
	ins := e.run("", "inspect", "-c", "--json")
	var got inspection
	if err := json.Unmarshal([]byte(ins.stdout), &got); err != nil || len(got.Timeline) != 1 {
		t.Fatalf("inspect: %v %s", err, ins.stdout)
	}

	edited := "## Goal\nShip on Friday.\n\n## Standing user instructions and constraints\nUse spaces."
	if res := e.run(edited, "compact", "-c", "--edit"); res.code != 0 || !strings.Contains(res.stdout, "replaced") {
		t.Fatalf("edit: %d %q %q", res.code, res.stdout, res.stderr)
	}
	e.srv.Add(pt.Text("ok"))
	if res := e.run("", "run", "-c", "go on"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	reqs := e.srv.Requests()
	var carried bool
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		if strings.Contains(m.Content, "Ship on Friday.") {
			carried = true
		}
		if strings.Contains(m.Content, "Use tabs.") && !strings.Contains(m.Content, "always use tabs") {
			t.Error("the original summary was sent after the edit")
		}
	}
	if !carried {
		t.Error("the next run does not carry the edited summary")
	}
	if pins := e.run("", "pins", "-c"); pins.code != 0 || !strings.Contains(pins.stdout, "no pins") {
		t.Errorf("pins: %d %q %q", pins.code, pins.stdout, pins.stderr)
	}
}

// TestE2ETUIControl drives the chat in tmux: as the window fills, the
// status line warns that compaction is near; /compact --preview shows the
// plan without a request; /pin adds a row to /context.
func TestE2ETUIControl(t *testing.T) {
	call := pt.ToolCallChunks(0, "c1", "ls", "{}", 1)
	e := newEnv(t,
		textUsage("first answer "+strings.Repeat("words ", 300), pt.Usage{Prompt: 12000, Completion: 400}),
		// A step past 90% of the point (28,672 of a 32K window): the
		// next step is announced.
		pt.Reply(append(call, pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 26000, Completion: 10}))...),
		textUsage("listed", pt.Usage{Prompt: 26100, Completion: 10}),
	)
	trustUsage(t, e, "m") // the scripted usage stands for a full context
	s := startTUI(t, e, "--model", "m")
	s.send("one")
	s.waitFor("the first answer", func(string) bool { return len(e.srv.Requests()) == 1 })
	s.idle()
	if strings.Contains(s.screen(), "compaction in") || strings.Contains(s.screen(), "compaction at") {
		t.Fatalf("warned before the window filled:\n%s", s.screen())
	}
	s.send("list the files")
	s.waitFor("the warning in the status line", func(screen string) bool {
		return strings.Contains(screen, "compaction at the next step") || strings.Contains(screen, "compaction in ~")
	})
	s.idle()
	n := len(e.srv.Requests())

	s.send("/compact --preview")
	screen := s.waitText("Compaction preview")
	for _, want := range []string{"Summarise", "Keep verbatim", "Estimated total after"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the preview lacks %q:\n%s", want, screen)
		}
	}
	if len(e.srv.Requests()) != n {
		t.Error("the preview sent a request")
	}
	// Wait for each panel to close: an Escape followed at once by "/"
	// reads as alt+/.
	s.keys("Escape")
	s.waitFor("the preview to close", func(screen string) bool { return !strings.Contains(screen, "Compaction preview") })

	s.send("/context")
	if screen := s.waitText("Context"); strings.Contains(screen, "■ pins") {
		t.Fatalf("a pins row before any pin:\n%s", screen)
	}
	s.keys("Escape")
	s.waitFor("/context to close", func(screen string) bool { return !strings.Contains(screen, "output reserve") })
	s.send("/pin staging is db-7")
	s.waitText("pinned: staging is db-7")
	s.send("/context")
	s.waitFor("the pins row in /context", func(screen string) bool { return strings.Contains(screen, "■ pins") })
	if pins := e.run("", "pins", "-c"); !strings.Contains(pins.stdout, "1. staging is db-7") {
		t.Errorf("agent pins: %q %q", pins.stdout, pins.stderr)
	}
}

func textUsage(text string, u pt.Usage) pt.Step {
	return pt.Reply(pt.TextChunk(text), pt.FinishChunk("stop"), pt.UsageChunk(u))
}
