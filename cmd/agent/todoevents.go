package main

// todoevents.go: the todo list (internal/todo) in `agent run`'s output.
// JSON: a `todo` event after the tool_result of each todo_write that
// succeeded, with the whole list — {"type":"todo","call_id":…,"todos":
// [{"id","text","status"}…],"pending":N,"in_progress":N,"done":N} — and a
// `todo_reminder` event {"text","open"} when a turn that ended with items
// not done is given its reminder step. Text mode: the reminder is a line
// on stderr (the todo_write itself is its tool line).

import (
	"fmt"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

// todoEvent is the JSON event of a list a todo_write set.
func todoEvent(callID string, l todo.List) map[string]any {
	p, ip, d := l.Counts()
	items := l
	if items == nil {
		items = todo.List{}
	}
	return map[string]any{"type": "todo", "call_id": callID, "todos": items, "pending": p, "in_progress": ip, "done": d}
}

// todoReminder writes a reminder step's announcement. The caller holds
// w.mu.
func (w *eventWriter) todoReminder(r *message.TodoReminder) {
	if r == nil {
		return
	}
	if w.json {
		w.emit(map[string]any{"type": "todo_reminder", "text": r.Text, "open": r.Open})
		return
	}
	w.breakLine()
	fmt.Fprintf(w.errOut, "· todo reminder: %d item(s) not done; one more step\n", r.Open)
}
