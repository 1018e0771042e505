package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/todo"
)

const (
	todoThree = `{"todos":[{"id":"1","text":"read the parser","status":"done"},{"id":"2","text":"fix the off-by-one","status":"in_progress"},{"id":"3","text":"run the tests","status":"pending"}]}`
	todoDone  = `{"todos":[{"id":"1","text":"read the parser","status":"done"},{"id":"2","text":"fix the off-by-one","status":"done"},{"id":"3","text":"run the tests","status":"done"}]}`
)

// todoListOf parses a todo_write input the test wrote.
func todoListOf(t *testing.T, input string) todo.List {
	t.Helper()
	l, err := todo.Parse([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// todoMessageAt is the index of the todo message in request n (-1: none).
func todoMessageAt(h *harness, n int) int {
	for i, m := range h.request(n) {
		if strings.HasPrefix(m.Content, todo.Preamble) {
			return i
		}
	}
	return -1
}

// TestTodoListSurvivesCompaction: while the todo_write call is sent, no
// extra message carries the list; once a compaction summarised it away,
// the next request carries the list word for word right after the
// summary, the calculator counts it as its own row, and `agent context`
// agrees with the running session.
func TestTodoListSurvivesCompaction(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text(long("planned", 3)))
	ctx := context.Background()
	if res := h.turn("fix the parser"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, q := range []string{"second", "third"} {
		h.srv.Add(pt.Text(long(q, 3)))
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if at := todoMessageAt(h, len(h.srv.Requests())-1); at >= 0 {
		t.Fatalf("the list is sent twice while its todo_write is visible (message %d)", at)
	}
	h.srv.Add(pt.Text(summaryText))
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if s := h.r.Reading(); s.Breakdown.Todo <= 0 {
		t.Fatalf("todo row after the compaction = %d, want > 0", s.Breakdown.Todo)
	}
	h.srv.Add(pt.Text("going on"))
	h.turn("go on")
	n := len(h.srv.Requests()) - 1
	msgs := h.request(n)
	sys := systemMessages(msgs)
	want := todo.Text(todoListOf(t, todoThree))
	if !strings.HasPrefix(msgs[sys].Content, SummaryPreamble) || todoMessageAt(h, n) != sys+1 || msgs[sys+1].Content != want {
		t.Fatalf("after the compaction the request goes on %.40q, then (message %d) %q; want the list verbatim right after the summary:\n%s",
			msgs[sys].Content, todoMessageAt(h, n), msgs[min(sys+1, len(msgs)-1)].Content, want)
	}
	// The request's print (cacheboundary.go) hashes the todo message the
	// request carries (finishRequest's, not a walk of its own).
	if p := h.r.stepper.bounds.lastPrint(); p == nil || p.todo != printOf([]byte(want)).hash {
		t.Error("the last request's print does not hash the todo message it sent")
	}
	live := h.r.Reading()
	read, _, err := StoredReading(ctx, h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil || read.Breakdown.Todo != live.Breakdown.Todo {
		t.Errorf("agent context's todo row %d, the session's %d (%v)", read.Breakdown.Todo, live.Breakdown.Todo, err)
	}
}

// TestTodoListRestoredOnResume: a session opened again reads back the list
// its last todo_write set (todo_read's result carries it).
func TestTodoListRestoredOnResume(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text("planned"))
	h.turn("fix the parser")
	id := h.r.Session().ID
	h.r.Close()
	h.srv.Add(pt.ToolCall("c2", todo.ReadName, `{}`), pt.Text("read it"))
	r2, err := Open(context.Background(), h.r.opt, id)
	if err != nil {
		t.Fatal(err)
	}
	h.r = r2
	t.Cleanup(func() { r2.Close() })
	if l := todo.Latest(r2.History()); len(l) != 3 || l[1].Status != todo.InProgress {
		t.Fatalf("resumed list = %+v", l)
	}
	h.turn("where are we?")
	msgs := h.request(len(h.srv.Requests()) - 1)
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "[>] 2. fix the off-by-one") || !strings.Contains(last.Content, "[ ] 3. run the tests") {
		t.Fatalf("todo_read after resuming returned %q", last.Content)
	}
}

// TestTodoListRewind: undoing the turn whose todo_write changed the list
// restores the list as it was before it, in the session and in what
// todo_read returns.
func TestTodoListRewind(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text("planned"),
		pt.ToolCall("c2", todo.WriteName, todoDone), pt.Text("all done"))
	h.turn("fix the parser")
	h.turn("finish")
	if l := todo.Latest(h.r.History()); l.Open() != 0 {
		t.Fatalf("before the undo: %+v", l)
	}
	if _, err := h.r.Undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := todo.Latest(h.r.History()); l.Open() != 2 || l[1].Status != todo.InProgress {
		t.Fatalf("after undoing the second turn the list is %+v, want the first list", l)
	}
	h.srv.Add(pt.ToolCall("c3", todo.ReadName, `{}`), pt.Text("read"))
	h.turn("where are we?")
	msgs := h.request(len(h.srv.Requests()) - 1)
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "[>] 2. fix the off-by-one") {
		t.Fatalf("todo_read after the undo returned %q", last.Content)
	}
}

// TestTodoReminderFiresOnce: a turn that ends with items open gets one
// reminder step, marked, announced and counted in the turn's steps;
// the model answering again without finishing gets no second one.
func TestTodoReminderFiresOnce(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.TodoReminder = true },
		pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text("stopping here"), pt.Text("still stopping: the tests need a database"))
	res := h.turn("fix the parser")
	if res.Err != nil || res.Steps != 3 {
		t.Fatalf("turn = %+v, want 3 steps (the reminder's included)", res)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3: the reminder fires once", n)
	}
	last := h.request(2)
	got := last[len(last)-1]
	if got.Role != "user" || !todo.IsReminder(got.Content) || !strings.Contains(got.Content, "2 todo items are not done: finish them or mark them and say why") {
		t.Fatalf("the reminder step's message = %q", got.Content)
	}
	evs := h.eventsOf(message.EventTodoReminder)
	if len(evs) != 1 || evs[0].TodoReminder == nil || evs[0].TodoReminder.Open != 2 {
		t.Fatalf("reminder events = %+v", evs)
	}
}

// TestTodoReminderNotWhenDoneOrOff: no reminder when every item is done,
// nor when the option is off.
func TestTodoReminderNotWhenDoneOrOff(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.TodoReminder = true },
		pt.ToolCall("c1", todo.WriteName, todoDone), pt.Text("all done"))
	if res := h.turn("fix the parser"); res.Err != nil || len(h.srv.Requests()) != 2 {
		t.Fatalf("all done: %+v, %d requests, want 2", res, len(h.srv.Requests()))
	}
	off := newHarness(t, pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text("stopping here"))
	if res := off.turn("fix the parser"); res.Err != nil || len(off.srv.Requests()) != 2 || len(off.eventsOf(message.EventTodoReminder)) != 0 {
		t.Fatalf("off: %+v, %d requests, want 2 and no reminder", res, len(off.srv.Requests()))
	}
}

// TestTodoWriteRefusedKeepsTheList: a todo_write with two items in
// progress, or a malformed item, is a tool error naming the problem, and
// the list stays the one before it.
func TestTodoWriteRefusedKeepsTheList(t *testing.T) {
	two := `{"todos":[{"id":"1","text":"a","status":"in_progress"},{"id":"2","text":"b","status":"in_progress"}]}`
	bad := `{"todos":[{"id":"1","text":"a","status":"started"}]}`
	h := newHarness(t, pt.ToolCall("c1", todo.WriteName, todoThree), pt.ToolCall("c2", todo.WriteName, two),
		pt.ToolCall("c3", todo.WriteName, bad), pt.Text("ok"))
	if res := h.turn("fix the parser"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(3)
	outs := []string{msgs[len(msgs)-3].Content, msgs[len(msgs)-1].Content}
	if !strings.Contains(outs[0], "at most one item may be in progress") || !strings.Contains(msgs[len(msgs)-1].Content, `todos[0].status: "started" is not one of pending, in_progress, done`) {
		t.Fatalf("tool results: %q / %q", outs[0], outs[1])
	}
	if l := todo.Latest(h.r.History()); len(l) != 3 || l[1].Status != todo.InProgress {
		t.Fatalf("after two refused writes the list is %+v, want the first", l)
	}
}

// TestTodoReminderNotPastTheStepLimit: a turn that used its last step
// gets no reminder step.
func TestTodoReminderNotPastTheStepLimit(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.TodoReminder, o.MaxSteps = true, 2 },
		pt.ToolCall("c1", todo.WriteName, todoThree), pt.Text("stopping here"))
	if res := h.turn("fix the parser"); res.Err != nil || res.Steps != 2 || len(h.srv.Requests()) != 2 || len(h.eventsOf(message.EventTodoReminder)) != 0 {
		t.Fatalf("turn %+v, %d requests; want 2 and no reminder", res, len(h.srv.Requests()))
	}
}
