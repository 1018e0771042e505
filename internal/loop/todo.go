package loop

// todo.go: the model's todo list (internal/todo) in the loop. The list is
// the input of the last todo_write that succeeded, in the history; while
// that call is sent, the request carries the list already. Once a
// compaction summarised it away, every request carries the list word for
// word in one user message right after the pins (or where they would be),
// like the pins, and the calculator counts it as its own row
// (tokens.Breakdown.Todo). Its appearing or changing is a recorded cache
// boundary (BoundaryTodo). The reminder a turn gets when it ends with
// items not done is in todoreminder.go.

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

// todoSent is the message that carries the list to the model ("" when the
// history sends the todo_write call itself, or there is no list).
func todoSent(history []message.Entry) string {
	l, at := todo.LatestIn(history)
	if len(l) == 0 {
		return ""
	}
	if visibleHas(tokens.VisibleHistory(history), at) {
		return ""
	}
	return todo.Text(l)
}

// visibleHas reports whether message id is among v's entries. It walks
// v's pieces in place: Entries would copy the whole visible history on
// every request (finishRequest) and every compaction decision.
func visibleHas(v tokens.Visible, id string) bool {
	if v.Summary != nil && v.Summary.Message.ID == id {
		return true
	}
	for _, piece := range [][]message.Entry{v.Head, v.Kept, v.After} {
		for i := range piece {
			if piece[i].Message.ID == id {
				return true
			}
		}
	}
	return false
}

// todoNow is the todo message and its estimate for the next request.
func todoNow(history []message.Entry, est tokens.Estimator) (string, int64) {
	t := todoSent(history)
	if t == "" {
		return "", 0
	}
	return t, int64(est.Count(t)) + tokens.TokensPerMessage
}
