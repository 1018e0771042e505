package main

import (
	"encoding/json"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func TestE2ECompactAndInspect(t *testing.T) {
	summary := "## Goal\nShip.\n\n## Standing user instructions and constraints\nUse tabs.\n\n## Done so far\nNone.\n\n## Files touched\nNone.\n\n## Current state\nNone.\n\n## Next steps\nNone."
	e := newEnv(t,
		pt.Text(strings.Repeat("first answer ", 200)),
		pt.Text(strings.Repeat("second answer ", 200)),
		pt.Text(strings.Repeat("third answer ", 200)),
		pt.Text(summary),
	)
	for i, q := range []string{"always use tabs", "second", "third"} {
		args := []string{"run", q}
		if i > 0 {
			// One session of three turns: a session of one turn has
			// nothing to compact (issue 12).
			args = []string{"run", "-c", q}
		}
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("run: %d %s", res.code, res.stderr)
		}
	}
	res := e.run("", "compact", "-c", "keep", "the", "plan")
	if res.code != 0 || !strings.Contains(res.stdout, "compacted session") {
		t.Fatalf("compact: %d %q %q", res.code, res.stdout, res.stderr)
	}
	req := e.srv.Requests()[3].Chat.Messages
	if last := req[len(req)-1].Content; !strings.Contains(last, "keep the plan") || !strings.Contains(last, "## Next steps") {
		t.Errorf("summary request does not carry the focus: %q", last[max(0, len(last)-200):])
	}

	ins := e.run("", "inspect", "-c", "--json")
	if ins.code != 0 {
		t.Fatalf("inspect: %d %s", ins.code, ins.stderr)
	}
	var got inspection
	if err := json.Unmarshal([]byte(ins.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summaries != 1 || len(got.Timeline) != 1 || got.Timeline[0].Kind != "compaction" {
		t.Fatalf("inspection = %+v", got)
	}
	if tl := got.Timeline[0]; tl.TokensAfter >= tl.TokensBefore || tl.Reason != "manual" {
		t.Errorf("timeline entry = %+v", tl)
	}
	human := e.run("", "inspect", "-c")
	if !strings.Contains(human.stdout, "compaction") || !strings.Contains(human.stdout, "summaries 1") {
		t.Errorf("inspect text = %q", human.stdout)
	}

	ctx := e.run("", "context", "-c", "--json")
	var snap map[string]any
	json.Unmarshal([]byte(ctx.stdout), &snap)
	if snap["basis"] != "estimated" {
		t.Errorf("after a compaction the basis is estimated: %v", snap)
	}
	// The next run sends the summary, not the old turns.
	e.srv.Add(pt.Text("ok"))
	if res := e.run("", "run", "-c", "go on"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	for _, m := range e.srv.Requests()[4].Chat.Messages {
		if strings.Contains(m.Content, "first answer") {
			t.Error("a summarised answer was sent after the compaction")
		}
	}
}
