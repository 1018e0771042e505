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
	// The sums run to upTo: an edit before it counts them again.
	from := m.upTo
	if mark.unchangedUpTo(m.mark, m.upTo, len(history)) < m.upTo { // historyedits.go
		from = 0
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
