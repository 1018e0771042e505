package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// recallScript answers requests by what they carry: summary requests with
// a summary, "build" with a bash call printing a phrase, "big N" with a
// long answer, anything else with "ok".
func recallScript(req pt.Request) pt.Step {
	msgs := req.Chat.Messages
	last := msgs[len(msgs)-1]
	switch {
	case strings.Contains(last.Content, "## Standing user instructions and constraints"):
		return pt.Text("## Goal\nShip.\n\n## Done so far\nThree big answers.\n\n## Next steps\nNone.")
	case last.Role == openai.ChatMessageRoleTool:
		return pt.Text("built")
	case last.Content == "build":
		return pt.ToolCall("call_build", "bash", `{"command":"echo 'the quasar flux inverter hums'; seq 1 400"}`)
	case strings.HasPrefix(last.Content, "big "):
		return pt.Text(strings.Repeat(last.Content+" answer words ", 1500)) // ≈6K tokens
	}
	return pt.Text("ok")
}

// sentContent reports whether a request carries s.
func sentContent(msgs []openai.ChatCompletionMessage, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

func TestE2ERecallUndoAndSearch(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(recallScript)
	e.without("AGENT_MODEL") // it would switch every resumed session's model
	e.vars = append(e.vars, "AGENT_MODEL=")
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"models": {"small": {"context_window": 16000, "max_output": 2000},
		"large": {"context_window": 200000, "max_output": 8000}},
		"compaction": {"auto": false, "prune_protect": 50, "prune_minimum": 50}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) result {
		t.Helper()
		res := e.run("", args...)
		if res.code != 0 {
			t.Fatalf("agent %v: %d %s", args, res.code, res.stderr)
		}
		return res
	}

	// Session A: a build whose output is pruned two turns later.
	run("run", "--yes", "build")
	run("run", "-c", "second")
	run("run", "-c", "third")
	var listed []map[string]any
	json.Unmarshal([]byte(run("sessions", "--json").stdout), &listed)
	if len(listed) != 1 {
		t.Fatalf("sessions: %v", listed)
	}
	sessionA := listed[0]["id"].(string)

	// Session B, on the 16K model: three answers of ≈6K tokens, compacted.
	run("run", "--model", "small", "big one")
	run("run", "-c", "big two")
	run("run", "-c", "big three")
	if res := run("compact", "-c"); !strings.Contains(res.stdout, "compacted session") {
		t.Fatalf("compact: %q", res.stdout)
	}
	var snap map[string]any
	json.Unmarshal([]byte(run("context", "-c", "--json").stdout), &snap)
	undo, _ := snap["undo_tokens"].(float64)
	if undo < 14000 || snap["restore_tokens"] == nil {
		t.Errorf("context after the compaction: undo_tokens %v restore_tokens %v", snap["undo_tokens"], snap["restore_tokens"])
	}

	// The history before the compaction does not fit 16K: refused.
	refused := e.run("", "compact", "--undo", "-c")
	if refused.code != 1 || !strings.Contains(refused.stderr, "the history before the compaction is") ||
		!strings.Contains(refused.stderr, "the current model's window is 16K") {
		t.Fatalf("undo on the 16K model: %d %q", refused.code, refused.stderr)
	}
	// On the 200K model it is restored, and the next request sends the
	// three answers again, not the summary.
	if res := run("compact", "--undo", "-c", "--model", "large"); !strings.Contains(res.stdout, "undid the compaction") {
		t.Fatalf("undo: %q", res.stdout)
	}
	run("run", "-c", "fourth")
	// The step's request, not a title request that may come after it.
	var next []openai.ChatCompletionMessage
	model := ""
	for _, r := range e.srv.Requests() {
		if m := r.Chat.Messages; len(m) > 0 && m[len(m)-1].Content == "fourth" {
			next, model = m, r.Chat.Model
		}
	}
	if next == nil || !sentContent(next, "big one answer words") || !sentContent(next, "big three answer words") {
		t.Errorf("the request after the undo lacks the restored turns")
	}
	if sentContent(next, "Three big answers.") {
		t.Errorf("the undone summary was sent")
	}
	if model != "large" {
		t.Errorf("model %q", model)
	}

	// From session B's directory, search finds session A's pruned output.
	text := run("sessions", "search", "quasar", "flux", "inverter")
	if !strings.Contains(text.stdout, sessionA) || !strings.Contains(text.stdout, "the quasar flux inverter hums") ||
		!strings.Contains(text.stdout, "[bash, pruned]") {
		t.Errorf("sessions search: %q", text.stdout)
	}
	var rows []searchRow
	if err := json.Unmarshal([]byte(run("sessions", "search", "--json", "--all", "quasar flux inverter").stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != sessionA || len(rows[0].Matches) == 0 || !rows[0].Matches[0].Pruned ||
		rows[0].Matches[0].CallID != "call_build" || !strings.Contains(rows[0].Matches[0].Snippet, "quasar flux inverter") {
		t.Errorf("sessions search --json: %+v", rows)
	}
	if res := run("sessions", "search", "--json", "zzyzxqv"); strings.TrimSpace(res.stdout) != "[]" {
		t.Errorf("no match: %q", res.stdout)
	}
}
