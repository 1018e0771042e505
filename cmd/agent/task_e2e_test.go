package main

import (
	"encoding/json"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ETaskSubagent: `agent run` offers the task tool; a task call runs
// a child session whose spending is in done's totals, the JSON stream
// shows the task call and its answer only, `agent sessions` lists the
// parent alone, and `sessions rm` of the parent removes the child.
func TestE2ETaskSubagent(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("call_task", "task", `{"description":"count files","prompt":"How many files are there?"}`),
		pt.Reply(append(pt.ToolCallChunks(0, "call_ls", "ls", "{}", 1),
			pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 50000, Completion: 10}))...),
		pt.Reply(pt.TextChunk("There are no files."), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: 50100, Completion: 5})),
		pt.Text("None."),
	)
	res := e.run("", "run", "--format", "json", "how many files?")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var done map[string]any
	var results, calls []string
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		switch ev["type"] {
		case "done":
			done = ev
		case "tool_call":
			calls = append(calls, ev["name"].(string))
		case "tool_result":
			results = append(results, ev["output"].(string))
		}
	}
	if len(calls) != 1 || calls[0] != "task" || len(results) != 1 || !strings.HasPrefix(results[0], "There are no files.\n\n[subagent session ") {
		t.Errorf("calls %q, results %q: want the task call and its answer only", calls, results)
	}
	usage, _ := done["usage"].(map[string]any)
	if in, _ := usage["input"].(float64); in < 100100 {
		t.Errorf("done usage = %v, want the child's 100K input tokens in it", done["usage"])
	}
	if cost, _ := done["cost_usd"].(float64); cost < 0.2 {
		t.Errorf("done cost = $%v, want the child's $0.2 in it", cost)
	}

	rows := e.listJSON("--all")
	if len(rows) != 1 || rows[0].ID != done["session_id"] {
		t.Fatalf("sessions = %+v, want the parent only", rows)
	}
	child := strings.Fields(strings.TrimPrefix(results[0], "There are no files.\n\n[subagent session "))[0]
	child = strings.TrimSuffix(child, ":")
	if show := e.run("", "sessions", "show", child); show.code != 0 || !strings.Contains(show.stdout, "# count files") {
		t.Errorf("show child %s: exit %d: %.300s %s", child, show.code, show.stdout, show.stderr)
	}
	rm := e.run("y\n", "sessions", "rm", rows[0].ID)
	if rm.code != 0 || !strings.Contains(rm.stderr, "and its subagent's session? [y/N]") {
		t.Errorf("rm: exit %d: %s", rm.code, rm.stderr)
	}
	if show := e.run("", "sessions", "show", child); show.code != 1 {
		t.Errorf("the child outlived its parent: show exit %d", show.code)
	}
}
