package todo

// tools.go: todo_write and todo_read. Both change no file and need no
// permission (ReadOnly): the list lives in the session's history, where
// the loop stores the call like any other. Their descriptions and schemas
// are short on purpose: every request carries them (the fixed overhead's
// budget, loop's TestLazyToolLoadingWith100Tools); Parse says in its
// errors what the schema leaves out.

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
	return "Replace your todo list for a multi-step task: the whole list each call. One item in_progress at most; mark items done as you finish them."
}

var writeParameters = json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"},"status":{"enum":["pending","in_progress","done"]}},"required":["id","text","status"]}}},"required":["todos"]}`)

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

func (readTool) Description() string { return "Read your todo list." }

var readParameters = json.RawMessage(`{"type":"object","properties":{}}`)

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
