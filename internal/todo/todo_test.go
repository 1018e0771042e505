package todo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

func TestParseNamesTheWrongField(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"not an object", `[]`, "JSON object"},
		{"no todos", `{}`, "todos: missing"},
		{"todos not an array", `{"todos":"x"}`, "todos: must be an array"},
		{"unknown top field", `{"todos":[],"items":[]}`, "items: unknown field"},
		{"item not an object", `{"todos":[3]}`, "todos[0].item: must be an object"},
		{"missing id", `{"todos":[{"text":"a","status":"pending"}]}`, "todos[0].id: missing"},
		{"empty text", `{"todos":[{"id":"1","text":"a","status":"done"},{"id":"2","text":" ","status":"pending"}]}`, "todos[1].text: empty"},
		{"text not a string", `{"todos":[{"id":"1","text":5,"status":"done"}]}`, "todos[0].text: must be a string"},
		{"bad status", `{"todos":[{"id":"1","text":"a","status":"doing"}]}`, `todos[0].status: "doing" is not one of pending, in_progress, done`},
		{"unknown item field", `{"todos":[{"id":"1","text":"a","status":"done","prio":1}]}`, "todos[0].prio: unknown field"},
		{"duplicate id", `{"todos":[{"id":"1","text":"a","status":"done"},{"id":"1","text":"b","status":"pending"}]}`, `todos[1].id: "1" is also the id of todos[0]`},
		{"two in progress", `{"todos":[{"id":"1","text":"a","status":"in_progress"},{"id":"2","text":"b","status":"pending"},{"id":"3","text":"c","status":"in_progress"}]}`, "todos[0] and todos[2] are both in_progress: at most one item may be in progress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%s) = %v, want an error containing %q", tc.input, err, tc.want)
			}
		})
	}
	l, err := Parse(json.RawMessage(`{"todos":[{"id":"1","text":" a ","status":"done"},{"id":"2","text":"b","status":"in_progress"},{"id":"3","text":"c","status":"pending"}]}`))
	if err != nil || len(l) != 3 || l[0].Text != "a" || l.Open() != 2 {
		t.Fatalf("valid list: %v %v", l, err)
	}
}

func toolPart(input string, st message.ToolStatus) message.Part {
	return message.Part{Type: message.PartTool, Tool: &message.ToolState{Name: WriteName, Status: st, Input: input}}
}

func assistant(id string, parts ...message.Part) message.Entry {
	return message.Entry{Message: message.Message{ID: id, Role: message.RoleAssistant}, Parts: parts}
}

// A failed todo_write keeps the previous list; a rewound message's list
// is not the current one.
func TestLatestKeepsThePreviousListOnErrorAndSkipsRewound(t *testing.T) {
	one := `{"todos":[{"id":"1","text":"first","status":"in_progress"}]}`
	two := `{"todos":[{"id":"1","text":"first","status":"done"},{"id":"2","text":"second","status":"pending"}]}`
	bad := `{"todos":[{"id":"1","text":"x","status":"in_progress"},{"id":"2","text":"y","status":"in_progress"}]}`
	h := []message.Entry{assistant("a", toolPart(one, message.ToolCompleted)), assistant("b", toolPart(bad, message.ToolError))}
	if l := Latest(h); len(l) != 1 || l[0].Text != "first" {
		t.Fatalf("after a refused write: %v, want the first list", l)
	}
	h = append(h, assistant("c", toolPart(two, message.ToolCompleted)))
	if l := Latest(h); len(l) != 2 {
		t.Fatalf("after the second write: %v", l)
	}
	h[2].Message.RewindID = "rw"
	if l := Latest(h); len(l) != 1 || l[0].Status != InProgress {
		t.Fatalf("after rewinding the second write: %v, want the first list", l)
	}
}

func TestWriteToolRefusesAndReadToolReads(t *testing.T) {
	w, r := Tools(func() List { return List{{ID: "1", Text: "x", Status: Pending}} })[0], Tools(func() List { return List{{ID: "1", Text: "x", Status: Pending}} })[1]
	res, _ := w.Run(context.Background(), &tools.Env{}, tools.Call{Input: json.RawMessage(`{"todos":[{"id":"1","text":"a","status":"in_progress"},{"id":"2","text":"b","status":"in_progress"}]}`)})
	if !res.IsError || !strings.Contains(res.Output, "at most one item may be in progress") || !strings.Contains(res.Output, "unchanged") {
		t.Fatalf("two in progress: %+v", res)
	}
	res, _ = r.Run(context.Background(), &tools.Env{}, tools.Call{})
	if res.IsError || !strings.Contains(res.Output, "[ ] 1. x") {
		t.Fatalf("read: %+v", res)
	}
}

// TestParseKeepsItemsOnOneLineWithoutEscapes: what the chat shows and
// every request repeats has no terminal escape and no line break.
func TestParseKeepsItemsOnOneLineWithoutEscapes(t *testing.T) {
	l, err := Parse(json.RawMessage(`{"todos":[{"id":"1","text":"fix \u001b[31mred\u001b[0m\nthen\ttest","status":"pending"}]}`))
	if err != nil || len(l) != 1 || l[0].Text != "fix red then test" {
		t.Fatalf("Parse = %+v, %v", l, err)
	}
	if got := Reminder(l); !strings.HasPrefix(got, ReminderPrefix+"1 todo item is not done: finish them or mark them and say why") {
		t.Errorf("Reminder = %q", got)
	}
}
