package loop

// historyedits.go: how the request cache knows that the history's
// entries are as they were. The session's lock counts every write to the
// history that may change an entry already in it (editHistory,
// replaceEntry, dropUserEntry: an edit), and keeps for the last
// editsKept edits the first entry each may have changed (0 for
// editHistory: any); appending an entry is not an edit. A request made
// when every edit since the last request's conversation changed only its
// newest entries, over a history that has only grown since otherwise,
// sends the last one's older entries as it did: the request cache walks
// only its newest entries and what was appended (reqresume.go). A writer
// that changes an entry in place without going through one of those
// counts nothing: the step's own entry, written in place while its tools
// run, is among the newest entries, which are always walked again
// (recheckNewest).

import (
	"math"
	"sync"
	"sync/atomic"
)

// historyLock is the session's lock, and the count of the history's
// edits made under it (read without it by the loop that owns the
// history while busy).
type historyLock struct {
	sync.Mutex
	edits atomic.Uint64
	from  [editsKept]atomic.Int64 // edit k's first entry changed, at k % editsKept
}

// editsKept is how many edits' first entries are kept.
const editsKept = 64

// edited counts an edit of the history that may have changed its entries
// from the one at from on; the caller holds the lock.
func (l *historyLock) edited(from int) {
	k := l.edits.Load()
	l.from[k%editsKept].Store(int64(from))
	l.edits.Store(k + 1)
}

// editedSince reports the first entry the edits after the count since
// may have changed (ok false when they are no longer all known). The
// loop that owns the history calls it; an edit made meanwhile by another
// goroutine under the lock makes it answer false.
func (l *historyLock) editedSince(since uint64) (from int, ok bool) {
	now := l.edits.Load()
	if now < since || now-since > editsKept {
		return 0, false
	}
	from = math.MaxInt
	for k := since; k < now; k++ {
		from = min(from, int(l.from[k%editsKept].Load()))
	}
	return from, l.edits.Load() == now
}

// historyMark is the history a conversation was made from: its edit
// count, how many entries it had, and the lock that counts its edits.
// The zero mark knows nothing: the conversation is walked whole.
type historyMark struct {
	edits uint64
	n     int
	lock  *historyLock
}

// unchangedUpTo is how many of a history's first entries are as they
// were when last was taken, of the kept first ones a memo made from it
// holds: kept, less what the edits since changed; 0 when that is not
// known (another history, other edits than kept track of, a history of
// other than n entries now, or fewer than kept). resumeWalk, todoMemo
// and tallyMemo start from there.
func (m historyMark) unchangedUpTo(last historyMark, kept, n int) int {
	if m.lock == nil || m.lock != last.lock || m.n != n || kept > n {
		return 0
	}
	if m.edits == last.edits {
		return kept
	}
	edited, ok := m.lock.editedSince(last.edits)
	if !ok {
		return 0
	}
	return min(kept, edited)
}
