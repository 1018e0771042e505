package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ERunNeverWaitsOnTheTerminal: `agent run` started from a terminal
// (a pseudo-terminal from script(1), its input open and silent) runs a
// command that asks the terminal for input (read </dev/tty, as ssh,
// sudo and credential helpers do): the command fails at once, it does not
// wait for a user who is not there until its timeout.
func TestE2ERunNeverWaitsOnTheTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	e := newEnv(t,
		pt.ToolCall("c_tty", "bash", `{"command":"read -r answer </dev/tty; echo \"read:$answer\"","timeout_s":20}`),
		pt.Text("Done."))
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{"verify": false})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := filepath.Join(t.TempDir(), "events.jsonl")
	cmd := exec.CommandContext(ctx, script, "-qec", agentBin+" run --yes --format json 'ask me' >"+out, "/dev/null")
	cmd.Dir, cmd.Env = e.work, append(e.vars, "TERM=xterm")
	stdin, keepOpen, err := os.Pipe() // the terminal's input: open, never written
	if err != nil {
		t.Fatal(err)
	}
	defer keepOpen.Close()
	cmd.Stdin = stdin
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("script: %v: %s", err, errb.String())
	}
	took := time.Since(start)
	data, _ := os.ReadFile(out)
	results := toolResults(t, string(data))
	got, _ := results["c_tty"]["output"].(string)
	if strings.Contains(got, "timed out") || took > 15*time.Second {
		t.Fatalf("the command waited on the terminal (%v): %q", took, got)
	}
	if results["c_tty"]["is_error"] != false && !strings.Contains(got, "/dev/tty") {
		t.Errorf("result %v, want the terminal refused", results["c_tty"])
	}
	t.Logf("took %v: %q", took, got)
}

// TestE2ERunAnswersAQuestionByPolicy: a headless turn that ends with the
// model asking the user gets the run's answer (proceed with the most
// reasonable assumption and say so), recorded as a "guard" event of kind
// question and as the stored message; a second question in the same turn
// is not answered again, and the run ends (exit 0).
func TestE2ERunAnswersAQuestionByPolicy(t *testing.T) {
	e := newEnv(t, pt.Text("Should I use tabs or spaces?"), pt.Text("Which file first?"))
	res := e.run("", "run", "--format", "json", "format the code")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (one policy answer, once)", len(reqs))
	}
	if got := lastUserText(reqs[1]); !strings.HasPrefix(got, "[non-interactive]") || !strings.Contains(got, "most reasonable assumption") {
		t.Errorf("the policy's answer = %q", got)
	}
	var kinds []string
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] == "guard" {
			kinds = append(kinds, ev["kind"].(string))
		}
	}
	if strings.Join(kinds, ",") != "question" {
		t.Errorf("guard kinds = %v, want one question", kinds)
	}
}
