package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EEditedSummaryKeepsTheUserMessages (issue 27 item 1): a rule
// typed in turn 1 is in every request before a compaction, after it, after
// `agent compact --edit` fed the new summary on stdin, and after an edit
// through $EDITOR, which shows the verbatim block only below the read-only
// marker and cannot drop it by rewriting the whole file.
func TestE2EEditedSummaryKeepsTheUserMessages(t *testing.T) {
	const rule = "RULE-7: never touch the vendor directory"
	summary := "## Goal\nShip.\n\n## Standing user instructions and constraints\nNone.\n\n## Next steps\nNone."
	e := newEnv(t,
		pt.Text(strings.Repeat("first answer ", 200)),
		pt.Text(strings.Repeat("second answer ", 200)),
		pt.Text(strings.Repeat("third answer ", 200)),
		pt.Text(summary),
	)
	for i, q := range []string{rule, "second", "third"} {
		args := []string{"run", "-c", q}
		if i == 0 {
			args = []string{"run", q}
		}
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("run: %d %s", res.code, res.stderr)
		}
	}
	if res := e.run("", "compact", "-c"); res.code != 0 {
		t.Fatalf("compact: %d %s", res.code, res.stderr)
	}
	// carriesRule checks every request from the from-th on.
	carriesRule := func(when string, from int) {
		t.Helper()
		reqs := e.srv.Requests()
		if from >= len(reqs) {
			t.Fatalf("%s: no request to check", when)
		}
		for i, r := range reqs[from:] {
			var n int
			for _, m := range r.Chat.Messages {
				n += strings.Count(m.Content, rule)
			}
			if n != 1 {
				t.Errorf("%s: request %d carries the rule %d times", when, from+i, n)
			}
		}
	}
	turns := func(qs ...string) int {
		t.Helper()
		from := len(e.srv.Requests())
		for _, q := range qs {
			e.srv.Add(pt.Text("ok " + q))
			if res := e.run("", "run", "-c", q); res.code != 0 {
				t.Fatalf("run %q: %d %s", q, res.code, res.stderr)
			}
		}
		return from
	}
	carriesRule("before the edit", turns("fourth"))

	edited := "## Goal\nShip on Friday.\n\n## Next steps\nWrite the changelog."
	res := e.run(edited, "compact", "-c", "--edit")
	if res.code != 0 || !strings.Contains(res.stdout, "replaced") {
		t.Fatalf("edit from stdin: %d %q %q", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "stay as they were") {
		t.Errorf("the edit does not say the user messages stay: %q", res.stdout)
	}
	from := turns("fifth", "sixth")
	carriesRule("after the edit from stdin", from)
	if !lastCarries(e, "Write the changelog.") {
		t.Error("the edit from stdin is not carried")
	}

	// $EDITOR on a terminal: the fake editor keeps what it was given and
	// replaces the whole file, read-only part included, with its own text.
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed: the $EDITOR path needs a terminal")
	}
	shown := filepath.Join(e.home, "shown.md")
	editor := filepath.Join(e.home, "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\ncp \"$1\" "+shellQuote(shown)+"\nprintf '## Goal\\nEdited in the editor.\\n' > \"$1\"\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", shellQuote(agentBin)+" compact -c --edit", "/dev/null")
	cmd.Dir, cmd.Env = e.work, append(append([]string(nil), e.vars...), "EDITOR="+editor, "TERM=dumb")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "replaced") {
		t.Fatalf("edit in $EDITOR: %v %s", err, out)
	}
	b, err := os.ReadFile(shown)
	if err != nil {
		t.Fatalf("the editor was not run: %v (%s)", err, out)
	}
	editable, kept, ok := strings.Cut(string(b), loop.SummaryEditMarker)
	if !ok || strings.Contains(editable, rule) || !strings.Contains(kept, rule) || !strings.Contains(editable, "Write the changelog.") {
		t.Errorf("the editor was shown the verbatim block as editable text:\n%s", b)
	}
	from = turns("seventh")
	carriesRule("after the edit in $EDITOR", from)
	if !lastCarries(e, "Edited in the editor.") || lastCarries(e, "Write the changelog.") {
		t.Error("the edit in $EDITOR is not carried")
	}
}

// lastCarries reports whether the newest request carries text.
func lastCarries(e *env, text string) bool {
	reqs := e.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// TestE2EFailingSummariserFallsBackQuickly (issue 27 item 5): a summary
// endpoint that keeps answering 503 gets at most 3 attempts per summary
// request before the model-free fallback compacts, and stderr says which
// happened: the summary attempts gave up, the fallback compacted.
func TestE2EFailingSummariserFallsBackQuickly(t *testing.T) {
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
	e.srv.Handle(func(pt.Request) pt.Step {
		return pt.HTTPError(503, nil, `{"error":{"message":"summariser down"}}`)
	})
	began := time.Now()
	res := e.run("", "compact", "-c")
	took := time.Since(began)
	if res.code != 0 {
		t.Fatalf("compact: %d %q %q", res.code, res.stdout, res.stderr)
	}
	if n := len(e.srv.Requests()) - 3; n > 2*3 {
		t.Errorf("%d summary requests, want at most 3 for each of the 2 summary attempts", n)
	}
	if !strings.Contains(res.stderr, "gave up on the summariser") || !strings.Contains(res.stderr, "compaction fallback") {
		t.Errorf("stderr does not say the summariser was given up on and the fallback compacted:\n%s", res.stderr)
	}
	if took > 30*time.Second {
		t.Errorf("the compaction took %s", took)
	}
	t.Logf("compaction with a failing summariser took %s, %d requests; stderr:\n%s", took.Round(100*time.Millisecond), len(e.srv.Requests())-3, res.stderr)
}
