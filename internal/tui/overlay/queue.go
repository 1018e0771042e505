package overlay

// The queue drawer (ctrl+q): the messages queued while the agent works,
// to edit, delete, reorder or flip between steering the running turn and
// waiting for its end. The chat passes the queue in as it stands (it
// changes under the drawer: a message is sent) and the loop's edits of it
// (QueueOps); the edits run off the Update loop, a failure comes back as
// an OpFailedMsg.

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// QueueOps are the edits of the loop's queue (loop.Runner has them).
type QueueOps interface {
	UpdateQueued(ctx context.Context, id, text string) error
	RemoveQueued(ctx context.Context, id string) error
	SetQueuedKind(ctx context.Context, id string, kind message.QueueKind) error
	MoveQueued(ctx context.Context, id string, to int) error
}

// OpFailedMsg says an edit the user asked for failed: what it was, and
// why.
type OpFailedMsg struct {
	What string
	Err  error
}

// QueueDrawer lists queued messages to edit, delete or reorder.
type QueueDrawer struct{ list listEditor }

// NewQueueDrawer opens on the oldest queued message.
func NewQueueDrawer() *QueueDrawer { return &QueueDrawer{list: listEditor{editHeight: 4}} }

// Clamp keeps the selection within a queue of n messages.
func (q *QueueDrawer) Clamp(n int) { q.list.clamp(n) }

// Update acts on queue through ops (nil: no session, nothing to edit).
func (q *QueueDrawer) Update(h Host, queue []message.QueuedMessage, ops QueueOps, msg tea.Msg) (Result, tea.Cmd) {
	if q.list.editing != nil {
		saved, cmd := q.list.updateEditing(msg)
		if saved == nil || ops == nil {
			return Keep, cmd
		}
		return Keep, func() tea.Msg {
			if err := ops.UpdateQueued(context.Background(), saved.id, saved.text); err != nil {
				return OpFailedMsg{What: "edit the queued message (it may have been sent already)", Err: err}
			}
			return nil
		}
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	if len(queue) == 0 {
		if k.String() == "esc" || k.String() == "ctrl+q" {
			return Close, nil
		}
		return Pass, nil
	}
	q.list.clamp(len(queue))
	cur := queue[q.list.sel]
	op := func(what string, fn func(ctx context.Context) error) tea.Cmd {
		if ops == nil {
			return nil
		}
		return func() tea.Msg {
			if err := fn(context.Background()); err != nil {
				return OpFailedMsg{What: what, Err: err}
			}
			return nil
		}
	}
	if q.list.move(k.String(), len(queue)) {
		return Keep, nil
	}
	switch k.String() {
	case "esc", "ctrl+q":
		return Close, nil
	case "enter", "e":
		q.list.edit(h, cur.ID, cur.Text)
	case "d", "delete", "backspace", "x":
		return Keep, op("delete the queued message", func(ctx context.Context) error { return ops.RemoveQueued(ctx, cur.ID) })
	case "tab", "s":
		kind := Flipped(cur)
		return Keep, op("flip the queued message (it may have been sent already)", func(ctx context.Context) error { return ops.SetQueuedKind(ctx, cur.ID, kind) })
	case "alt+up", "shift+up", "K":
		if q.list.sel > 0 {
			q.list.sel--
			to := q.list.sel
			return Keep, op("move the queued message", func(ctx context.Context) error { return ops.MoveQueued(ctx, cur.ID, to) })
		}
	case "alt+down", "shift+down", "J":
		if q.list.sel < len(queue)-1 {
			q.list.sel++
			to := q.list.sel
			return Keep, op("move the queued message", func(ctx context.Context) error { return ops.MoveQueued(ctx, cur.ID, to) })
		}
	}
	return Keep, nil
}

// View shows queue.
func (q *QueueDrawer) View(h Host, queue []message.QueuedMessage, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	var body []string
	if len(queue) == 0 {
		body = append(body, th.Dim.Render("nothing queued: messages sent while the agent works wait here"))
	}
	rows := make([]string, len(queue))
	for i, e := range queue {
		rows[i] = fmt.Sprintf("%d. %s %s", i+1, KindMark(e), theme.OneLine(termsafe.Strip(e.Text), inner-10))
	}
	body = append(body, q.list.view(th, rows, inner)...)
	footer := "↑↓ select · enter edit · tab steer⇄queue · d delete · shift+↑↓ move · esc"
	if q.list.editing != nil {
		footer = "enter save · esc cancel"
	}
	return theme.Frame(th, fmt.Sprintf("Queue (%d) · steer: at the next step · queue: after the turn", len(queue)), theme.ClampBody(body, height, q.list.sel), footer, width)
}

// KindMark is the queue panel's marker of an item's kind.
func KindMark(q message.QueuedMessage) string {
	if q.Steers() {
		return "steer"
	}
	return "queue"
}

// Flipped is the other kind.
func Flipped(q message.QueuedMessage) message.QueueKind {
	if q.Steers() {
		return message.KindQueue
	}
	return message.KindSteer
}

// InfoKeys is how the informational drawers treat keys: esc, enter and q
// close them, scrolling keys are the conversation's, and typing goes to
// the editor.
func InfoKeys(msg tea.Msg) Result {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep
	}
	switch k.String() {
	case "esc", "enter", "q":
		return Close
	}
	return Pass
}
