package todo

// tools.go: todo_write and todo_read. Both change no file and need no
// permission (ReadOnly): the list lives in the session's history, where
// the loop stores the call like any other.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxloop/agent/internal/tools"
)

// Tools returns todo_write and todo_read of a session; current returns the
// session's list now (Latest of its history).
func Tools(current func() List) []tools.Tool {
	return []tools.Tool{writeTool{}, readTool{current: current}}
}

type writeTool struct{}

var _ tools.Tool = writeTool{}

func (writeTool) Name() string { return WriteName }

// ReadOnly: the list is the call's own input, stored with the session; no
// file changes.
func (writeTool) ReadOnly() bool { return true }

func (writeTool) Description() string {
	return `Write your todo list for the current task: the WHOLE list each time (it replaces the previous one).
- Use it for a task of several steps (three or more, or when the user gives a list); skip it for a single quick step.
- Each item: id (short, stable: "1", "2"...), text (one line), status: pending, in_progress or done.
- At most one item in_progress; mark it done as soon as it is finished, then start the next.
- Before you end your answer, every item should be done, or say why it is not.`
}

var writeParameters = json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","description":"The whole list, in order.","items":{"type":"object","properties":{"id":{"type":"string","description":"Short stable id, e.g. \"1\"."},"text":{"type":"string","description":"What to do, one line."},"status":{"type":"string","enum":["pending","in_progress","done"]}},"required":["id","text","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`)

func (writeTool) Parameters() json.RawMessage { return writeParameters }

func (writeTool) Run(_ context.Context, _ *tools.Env, call tools.Call) (tools.Result, error) {
	l, err := Parse(call.Input)
	if err != nil {
		return tools.Result{Title: "todo_write: refused", IsError: true,
			Output: "todo_write refused, the list is unchanged: " + err.Error()}, nil
	}
	p, ip, d := l.Counts()
	title := fmt.Sprintf("todo: %d done, %d in progress, %d pending", d, ip, p)
	out := "The todo list is saved:\n" + Format(l)
	if len(l) == 0 {
		title, out = "todo: cleared", "The todo list is empty."
	}
	return tools.Result{Title: title, Output: out,
		Metadata: map[string]any{"pending": p, "in_progress": ip, "done": d}}, nil
}

type readTool struct{ current func() List }

var _ tools.Tool = readTool{}

func (readTool) Name() string   { return ReadName }
func (readTool) ReadOnly() bool { return true }

func (readTool) Description() string {
	return `Read your todo list as you last wrote it with todo_write.`
}

var readParameters = json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)

func (readTool) Parameters() json.RawMessage { return readParameters }

func (t readTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	var l List
	if t.current != nil {
		l = t.current()
	}
	if len(l) == 0 {
		return tools.Result{Title: "todo: empty", Output: "The todo list is empty."}, nil
	}
	p, ip, d := l.Counts()
	return tools.Result{Title: fmt.Sprintf("todo: %d done, %d in progress, %d pending", d, ip, p), Output: Format(l)}, nil
}
