package loop

// todoreminder.go: one reminder step for a turn that ends with todo items
// not done. When a turn ends on its own (the model answered: not a cancel,
// an error, the step cap or the budget) and the session's todo list
// (internal/todo) still has pending or in-progress items, the loop stores
// todo.Reminder as a synthetic user message ("[todo reminder] N todo items
// are not done: finish them or mark them and say why", a marked step in
// the chat), announces it (message.EventTodoReminder: a `todo_reminder`
// event of `agent run --format json`) and runs the turn on once. It fires
// at most once for each message the user sent, and never past the step
// cap; Options.TodoReminder turns it on (config todo.reminder; by default
// in `agent run` only).

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

// todoReminderDeps is what the reminder drives: the turn, the history it
// reads the list from, the synthetic message's write, the steps a Stop
// hook's continuation already made (get and set: the step cap counts
// them), the cap and the event sink.
type todoReminderDeps struct {
	on           bool
	turn         func(ctx context.Context) TurnResult
	history      func() []message.Entry
	addSynthetic func(ctx context.Context, text string) error
	stepsBefore  func() int
	setBefore    func(n int)
	maxSteps     int
	emit         func(message.Event)
	session      func() string
}

// todoReminder wraps a turn with the reminder. firedFor is the user
// message it last fired for.
type todoReminder struct {
	d        todoReminderDeps
	firedFor string
}

// turn runs a turn, and one reminder step after it when it is due.
func (t *todoReminder) turn(ctx context.Context) TurnResult {
	res := t.d.turn(ctx)
	if !t.d.on || !endedOnItsOwn(res) || ctx.Err() != nil {
		return res
	}
	h := t.d.history()
	l := todo.Latest(h)
	before := t.d.stepsBefore()
	from := lastUserMessageID(h)
	if l.Open() == 0 || from == t.firedFor || before+res.Steps >= t.d.maxSteps {
		return res
	}
	t.firedFor = from
	text := todo.Reminder(l)
	if err := t.d.addSynthetic(ctx, text); err != nil {
		return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
	}
	t.d.emit(message.Event{Type: message.EventTodoReminder, SessionID: t.d.session(),
		TodoReminder: &message.TodoReminder{Text: text, Open: l.Open()}})
	t.d.setBefore(before + res.Steps)
	defer t.d.setBefore(before)
	next := t.d.turn(ctx)
	next.Steps += res.Steps
	return next
}

// lastUserMessageID is the id of the newest message the user wrote (not
// synthetic, not rewound), "" for none.
func lastUserMessageID(history []message.Entry) string {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i].Message
		if m.Role == message.RoleUser && !m.Synthetic && !m.Summary && !m.Rewound() {
			return m.ID
		}
	}
	return ""
}
