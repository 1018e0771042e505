package loop

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// The memo answers what todoSent answers after any writer, in any order:
// plain entries and todo_write calls appended, the newest replaced, any
// entry edited or rewound (editHistory), a message dropped, compactions
// that hide the list and summaries appended.
func TestTodoMemoIsTodoSent(t *testing.T) {
	for seed := range int64(40) {
		var memo todoMemo
		randomWrites(seed, func(hist []message.Entry, mark historyMark) string {
			if got, want := memo.sent(hist, mark), todoSent(hist); got != want {
				return fmt.Sprintf("the memo says %q, todoSent %q", got, want)
			}
			return ""
		}, t)
	}
}

// The tally answers what summaryAndCompacted answers after any writer.
func TestTallyMemoIsSummaryAndCompacted(t *testing.T) {
	for seed := range int64(40) {
		var memo tallyMemo
		randomWrites(seed, func(hist []message.Entry, mark historyMark) string {
			s, c := memo.of(hist, mark)
			if ws, wc := summaryAndCompacted(hist); s != ws || c != wc {
				return fmt.Sprintf("the memo counts %q, %d; summaryAndCompacted %q, %d", s, c, ws, wc)
			}
			return ""
		}, t)
	}
}

// randomWrites writes a history as the session's writers do, 300 times
// in an order seed decides, and checks it after each write.
func randomWrites(seed int64, check func(hist []message.Entry, mark historyMark) string, t *testing.T) {
	t.Helper()
	rnd := rand.New(rand.NewSource(seed))
	var (
		lock historyLock
		hist []message.Entry
		n    int
	)
	id := func() string { n++; return fmt.Sprintf("m%06d", n) }
	entry := func(kind int) message.Entry {
		switch kind {
		case 0: // a todo_write call
			return message.Entry{Message: message.Message{ID: id(), Role: message.RoleAssistant}, Parts: []message.Part{{Type: message.PartTool,
				Tool: &message.ToolState{Name: "todo_write", Status: message.ToolCompleted, Input: fmt.Sprintf(`{"todos":[{"id":"1","text":"step %d","status":"pending"}]}`, n)}}}}
		case 1: // a compaction that hides everything before its summary
			sid := fmt.Sprintf("m%06d", n+2)
			return message.Entry{Message: message.Message{ID: id(), Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartCompaction,
				Compaction: &message.CompactionState{SummaryID: sid}}}}
		case 2:
			return message.Entry{Message: message.Message{ID: id(), Role: message.RoleAssistant, Summary: true}, Parts: []message.Part{{Type: message.PartText, Text: "summary"}}}
		default:
			role := message.RoleUser
			if rnd.Intn(2) == 0 {
				role = message.RoleAssistant
			}
			e := message.Entry{Message: message.Message{ID: id(), Role: role}, Parts: []message.Part{{Type: message.PartText, Text: "text"}}}
			if role == message.RoleAssistant {
				st := &message.ToolState{Name: "read", Status: message.ToolCompleted, Output: "out"}
				if rnd.Intn(2) == 0 {
					st.CompactedAt = time.Unix(5, 0)
				}
				e.Parts = append(e.Parts, message.Part{Type: message.PartTool, Tool: st})
			}
			return e
		}
	}
	for op := range 300 {
		lock.Lock()
		switch k := rnd.Intn(20); {
		case k < 10 || len(hist) == 0:
			kind := 3
			if k < 3 {
				kind = k
			}
			hist = append(hist, entry(kind))
		case k < 13: // replaceEntry of one of the newest
			i := len(hist) - 1 - rnd.Intn(min(len(hist), 3))
			e := entry(rnd.Intn(4))
			e.Message.ID = hist[i].Message.ID
			hist[i] = e
			lock.edited(i)
		case k < 15: // dropUserEntry
			i := rnd.Intn(len(hist))
			hist = append(hist[:i:i], hist[i+1:]...)
			lock.edited(i)
		case k < 17: // rewound, in place (editHistory)
			hist[rnd.Intn(len(hist))].Message.RewindID = "rw"
			lock.edited(0)
		case k < 18: // an output cleared in place (editHistory: a prune)
			for i := range hist {
				for j := range hist[i].Parts {
					if st := hist[i].Parts[j].Tool; st != nil && rnd.Intn(4) == 0 {
						cp := *st
						cp.CompactedAt = time.Unix(6, 0)
						hist[i].Parts[j].Tool = &cp
					}
				}
			}
			lock.edited(0)
		default: // a todo_write written in place (editHistory)
			i := rnd.Intn(len(hist))
			e := entry(0)
			e.Message.ID = hist[i].Message.ID
			hist[i] = e
			lock.edited(0)
		}
		lock.Unlock()
		mark := historyMark{edits: lock.edits.Load(), n: len(hist), lock: &lock}
		if msg := check(hist, mark); msg != "" {
			t.Fatalf("seed %d, op %d: %s", seed, op, msg)
		}
	}
}
