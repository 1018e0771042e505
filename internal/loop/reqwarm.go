package loop

// Warming the request cache. The first request after a session is opened
// would convert, encode and price the whole history to fill the request
// cache (reqcache.go) — ≈ 30 ms for 10,000 parts, between Enter and the
// request. The chat starts that work when the user starts typing
// (PrefetchEnvironment), once per Runner, on a copy of the history taken
// while the loop is idle; it stops when a turn starts (the turn converts
// what is left itself). What it adds is what the first request would have
// made from the same entries: a kept entry is still checked against the
// history before it is used.

import (
	"sync"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// warmFrom is the smallest history worth warming the cache for.
const warmFrom = 200

// warmBatch is how many entries are converted between two looks at
// whether a turn started.
const warmBatch = 256

// requestWarmer runs the warming at most once per Runner.
type requestWarmer struct {
	started bool // guarded by Runner.mu
	running sync.WaitGroup
}

// warmRequestCache starts warming the request cache in the background
// unless it was, the loop is busy or the history is short. It returns at
// once.
func (r *Runner) warmRequestCache() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.warm.started || r.busy || len(r.history) < warmFrom {
		return
	}
	r.warm.started = true
	r.warm.running.Add(1)
	go func() {
		defer r.warm.running.Done()
		hist, opt, est, ok := r.historyToWarm()
		if !ok {
			r.mu.Lock()
			r.warm.started = false // the next message's typing tries again
			r.mu.Unlock()
			return
		}
		r.reqc.warm(hist, opt, est, r.Busy)
	}()
}

// stopWarming waits for the warming to end (Close).
func (r *Runner) stopWarming() { r.warm.running.Wait() }

// historyToWarm copies the history, its parts and their tool and file
// states, with the options the next request converts it with, while the
// loop is idle; ok is false when it is busy or the history is short.
func (r *Runner) historyToWarm() (hist []message.Entry, opt ConvertOptions, est tokens.Estimator, ok bool) {
	r.sessWrite.Lock() // SetModel changes the model (r.info, r.est) under it
	defer r.sessWrite.Unlock()
	opt, est = r.convertOptions(), r.est
	r.mu.Lock() // the history is changed under it, or while busy
	defer r.mu.Unlock()
	if r.busy || len(r.history) < warmFrom {
		return nil, opt, est, false
	}
	hist = make([]message.Entry, len(r.history))
	for i, e := range r.history {
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
		hist[i] = e
	}
	return hist, opt, est, true
}

// warm converts, encodes and prices the visible entries of hist (a copy
// no one else changes) that the cache does not hold, batch by batch,
// until busy says a turn started. An entry the cache holds is left as
// it is; an entry with an image is not kept (as in conversation).
func (c *requestCache) warm(hist []message.Entry, opt ConvertOptions, est tokens.Estimator, busy func() bool) {
	entries := tokens.VisibleHistory(hist).Entries()
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
			c.roundtrip = opt.ReasoningRoundtrip
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
				continue
			}
			if ce.conv == nil && c.roundtrip == opt.ReasoningRoundtrip {
				ce.conv = m.conv
			}
			if ce.cost == nil && price && c.est == est {
				ce.cost = m.cost
			}
		}
		c.mu.Unlock()
	}
}
