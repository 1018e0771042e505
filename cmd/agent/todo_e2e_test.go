package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ETodoEvents: agent run --format json announces each todo_write
// that succeeded as a `todo` event with the whole list (right after its
// tool_result), none for a refused one (two items in progress: a tool
// error, the turn goes on), and a turn that ends with items not done gets
// one marked reminder step (`todo_reminder`), after which the model
// finishes the list. With config todo.reminder false the run ends on the
// model's answer.
func TestE2ETodoEvents(t *testing.T) {
	three := `{"todos":[{"id":"1","text":"read the parser","status":"done"},{"id":"2","text":"fix the off-by-one","status":"in_progress"},{"id":"3","text":"run the tests","status":"pending"}]}`
	two := `{"todos":[{"id":"1","text":"a","status":"in_progress"},{"id":"2","text":"b","status":"in_progress"}]}`
	done := `{"todos":[{"id":"1","text":"read the parser","status":"done"},{"id":"2","text":"fix the off-by-one","status":"done"},{"id":"3","text":"run the tests","status":"done"}]}`
	e := newEnv(t, pt.ToolCall("c1", "todo_write", three), pt.ToolCall("c2", "todo_write", two), pt.Text("stopping here"),
		pt.ToolCall("c3", "todo_write", done), pt.Text("all done"))
	res := e.run("", "run", "--format", "json", "fix the parser")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	evs := jsonEvents(t, res.stdout)
	var todos, reminders []map[string]any
	for i, ev := range evs {
		switch ev["type"] {
		case "todo":
			todos = append(todos, ev)
			if prev := evs[i-1]; prev["type"] != "tool_result" || prev["id"] != ev["call_id"] || prev["is_error"] != false {
				t.Errorf("todo event %v does not follow its tool_result (%v)", ev, prev)
			}
		case "todo_reminder":
			reminders = append(reminders, ev)
		case "tool_result":
			if ev["id"] == "c2" && (ev["is_error"] != true || !strings.Contains(ev["output"].(string), "at most one item may be in progress")) {
				t.Errorf("two in progress: %v", ev)
			}
		}
	}
	if len(todos) != 2 || todos[0]["call_id"] != "c1" || todos[1]["call_id"] != "c3" {
		t.Fatalf("todo events = %v, want c1's and c3's", todos)
	}
	first := todos[0]["todos"].([]any)
	if item := first[1].(map[string]any); len(first) != 3 || item["id"] != "2" || item["text"] != "fix the off-by-one" || item["status"] != "in_progress" ||
		todos[0]["pending"] != 1.0 || todos[0]["in_progress"] != 1.0 || todos[0]["done"] != 1.0 || todos[1]["done"] != 3.0 {
		t.Errorf("todo events' lists: %v / %v", todos[0], todos[1])
	}
	if len(reminders) != 1 || reminders[0]["open"] != 2.0 || !strings.Contains(reminders[0]["text"].(string), "2 todo items are not done") {
		t.Fatalf("todo_reminder events = %v, want one with 2 open", reminders)
	}
	if n := len(e.srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5 (the reminder's step included)", n)
	}
	if last := evs[len(evs)-1]; last["type"] != "done" || last["text"] != "all done" {
		t.Errorf("last event %v", last)
	}

	// Off by config: the model stops with items open, and the run ends.
	proj := filepath.Join(e.work, ".agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(proj), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(proj, []byte(`{"todo": {"reminder": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Add(pt.ToolCall("c4", "todo_write", three), pt.Text("stopping"))
	res = e.run("", "run", "--format", "json", "-c", "again")
	if res.code != 0 || strings.Contains(res.stdout, `"todo_reminder"`) || len(e.srv.Requests()) != 7 {
		t.Fatalf("reminder off: exit %d, %d requests, stdout %s", res.code, len(e.srv.Requests()), res.stdout)
	}
}
