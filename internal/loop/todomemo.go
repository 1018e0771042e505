package loop

// todomemo.go: the todo message of the next request without a walk over
// the whole history. todoSent (todo.go) looks for the newest todo list
// from the history's end; in a long session without one, or with one
// written long ago, that is every entry, twice a step (the compaction
// decision's fixed rows and the request). The memo keeps where the last
// look found it (or that none was found) with the history's mark
// (historyedits.go): the next look walks only the entries appended or
// edited since, and takes the memo's answer for the rest. What it answers
// is todoSent's (TestTodoMemoIsTodoSent).

import (
	"sync"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

// todoMemo is the last look's answer. The zero value is ready; it is
// safe for concurrent use.
type todoMemo struct {
	mu   sync.Mutex
	mark historyMark
	list todo.List
	id   string // the entry the list is in
	at   int    // its place in the history; -1: none
	text string // todoSent's answer then
}

// now is todoNow over history, whose mark is mark.
func (m *todoMemo) now(history []message.Entry, mark historyMark, est tokens.Estimator) (string, int64) {
	t := m.sent(history, mark)
	if t == "" {
		return "", 0
	}
	return t, int64(est.Count(t)) + tokens.TokensPerMessage
}

// sent is todoSent(history).
func (m *todoMemo) sent(history []message.Entry, mark historyMark) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	from := mark.unchangedUpTo(m.mark, m.mark.n, len(history)) // as the last look saw them (historyedits.go)
	l, id, at := latestTodo(history, from)
	switch {
	case at >= 0: // in what changed: looked at anew
	case from > 0 && m.at < from:
		if m.at < 0 {
			m.remember(mark, nil, "", -1, "")
			return ""
		}
		l, id, at = m.list, m.id, m.at
		// Nothing edited and only plain entries appended: what is
		// visible before them is as it was.
		if mark.edits == m.mark.edits && from == m.mark.n && plainTail(history, len(history)-from) {
			m.mark = mark
			return m.text
		}
	default:
		l, id, at = latestTodo(history, 0)
	}
	text := ""
	if len(l) > 0 && !visibleHas(tokens.VisibleHistory(history), id) {
		text = todo.Text(l)
	}
	m.remember(mark, l, id, at, text)
	return text
}

func (m *todoMemo) remember(mark historyMark, l todo.List, id string, at int, text string) {
	m.mark, m.list, m.id, m.at, m.text = mark, l, id, at, text
}

// latestTodo is todo.LatestIn over history's entries from from on, with
// the place of the entry found (-1: none).
func latestTodo(history []message.Entry, from int) (todo.List, string, int) {
	for i := len(history) - 1; i >= from; i-- {
		e := &history[i]
		if e.Message.Rewound() || e.Message.Role != message.RoleAssistant {
			continue
		}
		for j := len(e.Parts) - 1; j >= 0; j-- {
			if l, ok := todo.FromPart(&e.Parts[j]); ok {
				return l, e.Message.ID, i
			}
		}
	}
	return nil, "", -1
}
