package loop

// tallymemo.go: the cache-boundary print's count of the history
// (summaryAndCompacted: the newest summary and the tool outputs cleared)
// without a walk over every entry and part of a long session on the way
// from Enter to the request. The memo keeps the count of the history's
// entries up to recheckNewest before its end, with the history's mark
// (historyedits.go); the next count walks only what follows them, when
// no edit since reached before it. What it answers is
// summaryAndCompacted's (TestTallyMemoIsSummaryAndCompacted).

import (
	"sync"

	"github.com/ctxloop/agent/internal/message"
)

// tallyMemo is the count of a history's first upTo entries. The zero
// value is ready; it is safe for concurrent use.
type tallyMemo struct {
	mu        sync.Mutex
	mark      historyMark
	upTo      int
	summary   string
	compacted int
}

// of is summaryAndCompacted(history), whose mark is mark.
func (m *tallyMemo) of(history []message.Entry, mark historyMark) (summary string, compacted int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from := 0
	if mark.lock != nil && mark.lock == m.mark.lock && mark.n == len(history) && m.upTo <= len(history) {
		from = m.upTo
		if mark.edits != m.mark.edits {
			if edited, ok := mark.lock.editedSince(m.mark.edits); !ok || edited < m.upTo {
				from = 0
			}
		}
	}
	if from > 0 {
		summary, compacted = m.summary, m.compacted
	}
	upTo := max(len(history)-recheckNewest, from)
	for i := from; i < len(history); i++ {
		if i == upTo {
			m.summary, m.compacted = summary, compacted
		}
		s, c := summaryAndCompacted(history[i : i+1])
		if s != "" {
			summary = s
		}
		compacted += c
	}
	if upTo == len(history) {
		m.summary, m.compacted = summary, compacted
	}
	m.mark, m.upTo = mark, upTo
	return summary, compacted
}
