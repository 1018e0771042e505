package loop

// Warming the request cache. The first request after a session is opened
// would convert, encode and price the whole history to fill the request
// cache (reqcache.go) — ≈ 30 ms for 10,000 parts, between Enter and the
// request — and the first after a prune would do the same for every entry
// whose output the prune cleared. The chat starts that work when the user
// starts typing a message (PrefetchEnvironment), on copies of the entries
// the cache does not hold as they are, taken while the loop is idle; it
// stops when a turn starts (the turn converts what is left itself). When
// much of the history changed, it then makes the next request's
// conversation ahead, from a copy of the history (prebuildRequest), so
// that the request finds its messages in place instead of writing them
// all again. What it adds is what the request would have made from the
// same entries: a kept entry is still checked against the history before
// it is used.

import (
	"slices"
	"sync"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// warmFrom is the smallest history worth warming the cache for.
const warmFrom = 200

// warmBatch is how many entries are converted between two looks at
// whether a turn started.
const warmBatch = 256

// requestWarmer runs one warming at a time, and none once stopped: a
// warming's goroutine starts only through begin, which refuses once
// stopWarming (Close) has begun, so a warming asked for during or after
// the runner's Close (a runner the chat opened ahead and then closed:
// tui/earlyopen.go) starts nothing that Close does not wait for.
type requestWarmer struct {
	active  bool // guarded by the session's lock (stepDeps.withSession)
	mu      sync.Mutex
	stopped bool // guarded by mu
	running sync.WaitGroup
}

// begin counts a warming in, or reports false once stopped. The caller
// calls running.Done when it ends.
func (w *requestWarmer) begin() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	w.running.Add(1)
	return true
}

// warmRequestCache starts warming the request cache in the background
// unless a warming runs, the loop is busy or the history is short. It
// returns at once.
func (sp *stepper) warmRequestCache() {
	sp.warmShell() // shellwarm.go
	sp.withSession(func(busy bool, history []message.Entry, _ []string) {
		if sp.warm.active || busy || len(history) < warmFrom {
			return
		}
		if !sp.warm.begin() {
			return
		}
		sp.warm.active = true
		go sp.warmInBackground()
	})
}

// warmInBackground is the warming warmRequestCache started.
func (sp *stepper) warmInBackground() {
	defer sp.warm.running.Done()
	defer sp.withSession(func(bool, []message.Entry, []string) { sp.warm.active = false })
	hist, build, opt, est, ok := sp.historyToWarm()
	if !ok {
		return
	}
	sp.reqc.repriceAhead(sp.calc()) // reqresume.go
	if len(hist) > 0 {
		sp.reqc.warm(hist, opt, est, sp.busy)
	}
	if build {
		sp.prebuildRequest()
	}
}

// prebuildRequest makes the next request's conversation from a copy of
// the history taken while the loop is idle, so that the request finds
// its entries where they were and sends them from there
// (builtConversation) instead of writing them all into new arrays: what
// a request after a resume or a prune would do between Enter and the
// wire. It does nothing when a turn runs, or when the estimator's counts
// are not kept (the conversation would count the whole history).
func (sp *stepper) prebuildRequest() {
	var opt ConvertOptions
	var est tokens.Estimator
	var hist []message.Entry
	var system []string
	var mark historyMark
	sp.modelSteady(func() {
		opt, est = sp.convertOptions(), sp.modelPricing().est
		sp.withSession(func(busy bool, history []message.Entry, sys []string) {
			if busy || !cachedCounts(est) {
				return
			}
			hist = make([]message.Entry, len(history))
			for i, e := range history {
				hist[i] = copyEntry(e)
			}
			system = slices.Clone(sys)
			mark = sp.historyMark() // the copy's: historyedits.go
		})
	})
	if hist == nil {
		return
	}
	cv := sp.reqc.conversation(system, hist, mark, opt, sp.calc(), est)
	sp.bounds.setMemo(memoOf(cv.enc)) // printmemo.go
}

// stopWarming refuses every later warming and waits for those under way
// to end (Close).
func (sp *stepper) stopWarming() {
	sp.warm.mu.Lock()
	sp.warm.stopped = true
	sp.warm.mu.Unlock()
	sp.warm.running.Wait()
}

// historyToWarm copies the visible entries of the history that the
// request cache does not hold as they are, with the options the next
// request converts them with, while the loop is idle; ok is false when it
// is busy or the history is short. build says whether the next request
// would find more than warmFrom entries changed from the first that is
// to its end: worth making it ahead (prebuildRequest).
func (sp *stepper) historyToWarm() (hist []message.Entry, build bool, opt ConvertOptions, est tokens.Estimator, ok bool) {
	sp.modelSteady(func() { // SetModel changes the model (its info, its estimator)
		opt, est = sp.convertOptions(), sp.modelPricing().est
		sp.withSession(func(busy bool, history []message.Entry, _ []string) { // the history is changed under it, or while busy
			if busy || len(history) < warmFrom {
				return
			}
			todo, from := sp.reqc.toWarm(history, opt, est)
			for _, e := range todo {
				hist = append(hist, copyEntry(e))
			}
			build, ok = from > warmFrom, true
		})
	})
	return hist, build, opt, est, ok
}

// copyEntry is e with its own parts, tool and file states: what the loop
// changes in place.
func copyEntry(e message.Entry) message.Entry {
	e.Parts = append([]message.Part(nil), e.Parts...)
	for j := range e.Parts {
		p := &e.Parts[j]
		if p.Tool != nil {
			t := *p.Tool
			p.Tool = &t
		}
		if p.File != nil {
			f := *p.File
			p.File = &f
		}
	}
	return e
}

// toWarm returns the visible entries of history that warming would add
// something for — not held, or held as they were before a change, or held
// without their conversion or their price — and how many visible entries
// there are from the first of them to the end.
func (c *requestCache) toWarm(history []message.Entry, opt ConvertOptions, est tokens.Estimator) (todo []message.Entry, from int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	price := cachedCounts(est) && (c.est == nil || c.est == est)
	visible := tokens.VisibleHistory(history).Entries()
	for i, e := range visible {
		if e.Message.ID == "" {
			continue
		}
		ce := c.entries[e.Message.ID]
		if ce != nil && ce.key.matches(&e) && (ce.conv != nil || hasImage(&e)) && (ce.cost != nil || !price) {
			continue
		}
		if todo == nil {
			from = len(visible) - i
		}
		todo = append(todo, e)
	}
	return todo, from
}

// warm converts, encodes and prices entries (copies of the history's
// visible entries that no one else changes: toWarm), batch by batch,
// until busy says a turn started. What the cache holds for an entry as it
// is stays; what it holds for it as it was before a change (a prune) is
// replaced, as a request's walk would replace it. An entry with an image
// is not converted (as in conversation).
func (c *requestCache) warm(entries []message.Entry, opt ConvertOptions, est tokens.Estimator, busy func() bool) {
	price := cachedCounts(est)
	type made struct {
		e    *message.Entry
		conv *convertedEntry
		cost *pricedEntry
	}
	for from := 0; from < len(entries); from += warmBatch {
		if busy() {
			return
		}
		var batch []made
		for i := from; i < min(from+warmBatch, len(entries)); i++ {
			e := &entries[i]
			if e.Message.ID == "" {
				continue
			}
			m := made{e: e}
			if !hasImage(e) {
				m.conv = convertEntry(e, opt)
			}
			if price {
				m.cost = priceEntry(e, est)
			}
			batch = append(batch, m)
		}
		c.mu.Lock()
		if len(c.entries) == 0 && c.est == nil {
			// Nothing made yet: the cache takes the options warmed with.
			c.mode = modeOf(opt)
			if price {
				c.est = est
			}
		}
		if c.entries == nil {
			c.entries = map[string]*cachedEntry{}
		}
		for _, m := range batch {
			ce := c.entries[m.e.Message.ID]
			if ce == nil {
				ce = &cachedEntry{id: m.e.Message.ID, key: keyOf(m.e), used: c.pass}
				c.entries[ce.id] = ce
			} else if !ce.key.matches(m.e) {
				*ce = cachedEntry{id: ce.id, key: keyOf(m.e), used: c.pass}
			}
			if ce.conv == nil && c.mode == modeOf(opt) {
				ce.conv = m.conv
			}
			if ce.cost == nil && price && c.est == est {
				ce.cost = m.cost
			}
		}
		c.mu.Unlock()
	}
}
