// Package todo is the list the model keeps of a multi-step task: the list
// type, its validation, and the todo_write and todo_read tools.
//
// Contract:
//   - todo_write{todos} replaces the whole list. Each item has an id, a
//     text and a status (pending, in_progress or done); ids are unique and
//     at most one item is in progress. Input that breaks a rule is a tool
//     error naming the field ("todos[1].status: …"), and the list stays as
//     it was: a failed call changes nothing.
//   - The list is stored with the session as the tool part of the last
//     todo_write that succeeded (its input, the model's own words): there
//     is no table of its own. Latest finds it in a history, skipping the
//     messages a rewind took back, so resuming a session restores the list
//     and a rewind to before a todo_write restores the list as it was then.
//   - todo_read returns the current list, as the request carries it.
//   - An item's id and text are kept on one line, terminal escape
//     sequences removed (tools.Sanitize).
//   - Text is what every request carries after the summary and the pins,
//     word for word, so a compaction never summarises the list away.
//   - Reminder is the one message a turn that ends with items not done
//     gets (the loop decides when; this package says what).
package todo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// Tool names.
const (
	WriteName = "todo_write"
	ReadName  = "todo_read"
)

// Status is where an item stands.
type Status string

// The statuses an item may have.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
)

// MaxItems bounds a list; MaxTextBytes one item's text.
const (
	MaxItems     = 100
	MaxTextBytes = 2000
)

// Item is one step of the task.
type Item struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Status Status `json:"status"`
}

// List is the whole list, in the model's order. The zero value is empty.
type List []Item

// Counts returns how many items are pending, in progress and done.
func (l List) Counts() (pending, inProgress, done int) {
	for _, it := range l {
		switch it.Status {
		case Pending:
			pending++
		case InProgress:
			inProgress++
		case Done:
			done++
		}
	}
	return
}

// Open is the number of items not done.
func (l List) Open() int {
	p, ip, _ := l.Counts()
	return p + ip
}

// Parse validates a todo_write input and returns its list. The error
// names the field that is wrong ("todos[2].status: …") or says which two
// items are both in progress.
func Parse(input json.RawMessage) (List, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(input, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("the arguments must be a JSON object with a todos array")
	}
	for k := range raw {
		if k != "todos" {
			return nil, fmt.Errorf("%s: unknown field (the only field is todos)", k)
		}
	}
	arr, ok := raw["todos"]
	if !ok {
		return nil, fmt.Errorf("todos: missing (give the whole list, [] to clear it)")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(arr, &items); err != nil || bytes.Equal(bytes.TrimSpace(arr), []byte("null")) {
		return nil, fmt.Errorf("todos: must be an array of {id, text, status}")
	}
	if len(items) > MaxItems {
		return nil, fmt.Errorf("todos: %d items, at most %d", len(items), MaxItems)
	}
	list := make(List, 0, len(items))
	seen := map[string]int{}
	inProgress := -1
	for i, r := range items {
		it, err := parseItem(r)
		if err != nil {
			return nil, fmt.Errorf("todos[%d].%w", i, err)
		}
		if j, dup := seen[it.ID]; dup {
			return nil, fmt.Errorf("todos[%d].id: %q is also the id of todos[%d]; ids must be unique", i, it.ID, j)
		}
		seen[it.ID] = i
		if it.Status == InProgress {
			if inProgress >= 0 {
				return nil, fmt.Errorf("todos[%d] and todos[%d] are both in_progress: at most one item may be in progress; mark the other pending or done", inProgress, i)
			}
			inProgress = i
		}
		list = append(list, it)
	}
	return list, nil
}

// parseItem checks one item; its error starts with the field's name (the
// caller prefixes "todos[i].").
func parseItem(r json.RawMessage) (Item, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r, &fields); err != nil || fields == nil {
		return Item{}, fmt.Errorf("%s", "item: must be an object {id, text, status}")
	}
	for k := range fields {
		if k != "id" && k != "text" && k != "status" {
			return Item{}, fmt.Errorf("%s: unknown field (an item has id, text and status)", k)
		}
	}
	str := func(name string) (string, error) {
		v, ok := fields[name]
		if !ok {
			return "", fmt.Errorf("%s: missing", name)
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%s: must be a string, got %s", name, strings.TrimSpace(string(v)))
		}
		// One line, with no terminal escapes: what the chat shows and
		// every request repeats.
		s = strings.Join(strings.Fields(tools.Sanitize(s)), " ")
		if s == "" {
			return "", fmt.Errorf("%s: empty", name)
		}
		return s, nil
	}
	var it Item
	var err error
	if it.ID, err = str("id"); err != nil {
		return Item{}, err
	}
	if it.Text, err = str("text"); err != nil {
		return Item{}, err
	}
	if len(it.Text) > MaxTextBytes {
		return Item{}, fmt.Errorf("text: %d bytes, at most %d: keep an item to one line", len(it.Text), MaxTextBytes)
	}
	st, err := str("status")
	if err != nil {
		return Item{}, err
	}
	switch it.Status = Status(st); it.Status {
	case Pending, InProgress, Done:
	default:
		return Item{}, fmt.Errorf("status: %q is not one of pending, in_progress, done", st)
	}
	return it, nil
}

// FromPart returns the list a todo_write part set: ok only for a
// todo_write call that completed (a failed one set nothing).
func FromPart(p *message.Part) (List, bool) {
	if p == nil || p.Type != message.PartTool || p.Tool == nil {
		return nil, false
	}
	t := p.Tool
	if t.Name != WriteName || t.Status != message.ToolCompleted {
		return nil, false
	}
	l, err := Parse(json.RawMessage(t.Input))
	if err != nil {
		return nil, false
	}
	return l, true
}

// Latest returns the list the history's last successful todo_write set,
// skipping messages a rewind took back (nil: none).
func Latest(history []message.Entry) List {
	l, _ := LatestIn(history)
	return l
}

// LatestIn is Latest and the id of the message whose todo_write set the
// list ("" for none).
func LatestIn(history []message.Entry) (List, string) {
	for i := len(history) - 1; i >= 0; i-- {
		e := &history[i]
		if e.Message.Rewound() || e.Message.Role != message.RoleAssistant {
			continue
		}
		for j := len(e.Parts) - 1; j >= 0; j-- {
			if l, ok := FromPart(&e.Parts[j]); ok {
				return l, e.Message.ID
			}
		}
	}
	return nil, ""
}

// marks are the status marks of Format.
var marks = map[Status]string{Pending: "[ ]", InProgress: "[>]", Done: "[x]"}

// Format writes the list one item a line: "[x] 1. text".
func Format(l List) string {
	var b strings.Builder
	for _, it := range l {
		fmt.Fprintf(&b, "%s %s. %s\n", marks[it.Status], it.ID, it.Text)
	}
	return b.String()
}

// Preamble introduces the list in the request.
const Preamble = "Your todo list for this task, as you last wrote it with todo_write ([ ] pending, [>] in progress, [x] done); it is repeated here word for word:\n\n"

// Text is the message that carries the list to the model ("" for an empty
// list).
func Text(l List) string {
	if len(l) == 0 {
		return ""
	}
	return Preamble + Format(l)
}

// PromptLine is the system prompt's line on the tool.
const PromptLine = "- For a task of several steps, keep a todo list with todo_write."

// ReminderPrefix starts every reminder message, so the chat and the
// event stream can mark it.
const ReminderPrefix = "[todo reminder] "

// Reminder is the message a turn that ends with open items gets.
func Reminder(l List) string {
	n := l.Open()
	items := "items are"
	if n == 1 {
		items = "item is"
	}
	return fmt.Sprintf("%s%d todo %s not done: finish them or mark them and say why.\n\n%s", ReminderPrefix, n, items, Format(l))
}

// IsReminder reports whether a user message's text is a reminder.
func IsReminder(text string) bool { return strings.HasPrefix(text, ReminderPrefix) }
