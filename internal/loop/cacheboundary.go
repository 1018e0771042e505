package loop

// Cache boundaries. A provider's prompt cache serves the longest prefix a
// request shares with an earlier one: tools first, then the messages in
// order. Between two boundaries the stepper keeps that prefix
// byte-identical, so each request re-reads the one before it from the
// cache and pays full price only for what it adds; a boundary is a step
// whose request breaks the prefix, and every one is recorded (an event
// row "cache_boundary" with its reason, which `agent inspect` lists).
//
// The contract:
//
//   - A request breaks the prefix when its model, its reasoning effort, its
//     tools array, or any
//     message the last request sent (as encoded for the wire, cache
//     markers aside) differs, or it sends fewer messages. Appending
//     messages is not a break.
//   - The reasons a break has: compaction (the newest summary changed),
//     prune (tool outputs were cleared: batched by prune_minimum, so
//     rare), pins, todo (the todo list a compaction took out of the
//     messages is sent after the pins: todo.go), model, system (the
//     dynamic system message was made again: the date or an instruction
//     file changed; a new git status goes in the turn's user message
//     instead, envcontext.go), tools (a
//     server connected or went, or the model refused tools), history (the
//     history was rewound or edited), an announced change (announce: a
//     setting the user changed, such as effort), or unexplained — a bug
//     by this contract, which the prefix-stability test looks for.
//   - Tools tool_search found mid-stretch are called through call_tool
//     and join the tools array only at a boundary (toolsearch.Catalog.Join),
//     so they never break the prefix by themselves. A boundary records
//     the joined tools; a resumed session offers those again (the
//     previous process's tools array) until its next boundary.
//   - The share of the request expected to be read from the cache (the
//     prefix unchanged since the last request, in bytes, of the same
//     model) prices the budget's reservation (budget.go) — once the
//     provider has reported a cache read in the session (cacheReads): a
//     server that never caches is not expected to start.
//
// The first request a process makes for a session has no request to
// compare with: it is not a boundary (a resumed session sends what the
// last process sent, extended).

import (
	"context"
	"hash/maphash"
	"sync"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// The reasons of a cache boundary.
const (
	BoundaryCompaction  = "compaction"
	BoundaryPrune       = "prune"
	BoundaryPins        = "pins"
	BoundaryTodo        = "todo"
	BoundaryModel       = "model"
	BoundarySystem      = "system"
	BoundaryTools       = "tools"
	BoundaryHistory     = "history"
	BoundaryEffort      = "effort"
	BoundaryUnexplained = "unexplained"
)

// CacheBoundaryKind is the event row of a boundary.
const CacheBoundaryKind = "cache_boundary"

// CacheBoundary is a boundary's event row: why the prefix broke, where
// (the index of the first message that differs; -1 when the tools array
// or the model did), the model, and the tools joined then.
type CacheBoundary struct {
	Reason    string   `json:"reason"`
	Model     string   `json:"model"`
	AtMessage int      `json:"at_message"`
	Joined    []string `json:"joined,omitempty"`
	// JoinedNow counts the tools that joined at this boundary.
	JoinedNow int `json:"joined_now,omitempty"`
}

// partPrint is one message of a request: a hash of its encoding and its
// size in bytes.
type partPrint struct {
	hash  uint64
	bytes int
}

// printSeed seeds the prints' hash: prints are compared within a process
// only, never stored.
var printSeed = maphash.MakeSeed()

// requestPrint is what a request began with, and the state of the
// history it was made from (to name the reason of a break).
type requestPrint struct {
	model string
	// effort is the reasoning effort sent (a parameter, not a message;
	// a change is a boundary the user made: some providers key their
	// cache on it).
	effort string
	tools  *toolsPrint // hashed when first judged (toolsprint.go)
	msgs   []partPrint
	// enc are the encodings msgs were hashed from: the request cache
	// hands a message it did not change the same slice from step to step,
	// so the next print reuses its hash (printRequest).
	enc [][]byte
	// system is the hash of the system messages, pins of the pins text,
	// summary the newest summary's message id, compacted the tool
	// outputs cleared.
	system    uint64
	pins      uint64
	todo      uint64 // the todo message's hash (todo.go)
	summary   string
	compacted int
	history   int // entries
}

// boundaryWatch keeps the last request's print (see the file comment).
// It is used on the loop goroutine; announce may come from any.
type boundaryWatch struct {
	mu        sync.Mutex
	last      *requestPrint
	announced string
	// memo is the warming's hashes of the messages it encoded
	// (printmemo.go), for the first print after a resume; the print
	// takes it.
	memo *printMemo
}

// verdict is a prepared request's relation to the last one.
type verdict struct {
	print  *requestPrint
	broken bool
	at     int    // the first message that differs; -1: tools or model
	reason string // when broken
	// cachedShare is the part of the request's bytes expected from the
	// cache: the prefix it shares with the last request.
	cachedShare float64
}

// announce makes reason the reason of the next boundary (a setting the
// user changed that the request may not show), and lets found tools
// join at the next request.
func (w *boundaryWatch) announce(reason string) {
	w.mu.Lock()
	w.announced = reason
	w.mu.Unlock()
}

// takeAnnounced returns and clears the announced reason.
func (w *boundaryWatch) takeAnnounced() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.announced
	w.announced = ""
	return r
}

// lastPrint is the last request's print (nil before the first).
func (w *boundaryWatch) lastPrint() *requestPrint {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// sent makes p the last request's print.
func (w *boundaryWatch) sent(p *requestPrint) {
	w.mu.Lock()
	w.last = p
	w.mu.Unlock()
}

// judge compares p with the last request (pure but for reading last).
func (w *boundaryWatch) judge(p *requestPrint, announced string) verdict {
	w.mu.Lock()
	last := w.last
	w.mu.Unlock()
	return judgePrints(last, p, announced)
}

// judgePrints is the decision: whether next breaks last's prefix, where,
// why, and the share of next's bytes the two share.
func judgePrints(last, next *requestPrint, announced string) verdict {
	v := verdict{print: next, at: -1}
	if last == nil {
		return v
	}
	total := next.tools.print().bytes
	for _, m := range next.msgs {
		total += m.bytes
	}
	common := 0
	switch {
	case last.model != next.model, last.effort != next.effort:
		v.broken = true
	case last.tools.print() != next.tools.print():
		v.broken = true
	default:
		common = next.tools.print().bytes
		n := min(len(last.msgs), len(next.msgs))
		i := 0
		for i < n && last.msgs[i] == next.msgs[i] {
			common += next.msgs[i].bytes
			i++
		}
		if i < len(last.msgs) {
			v.broken, v.at = true, i
		}
	}
	if total > 0 {
		v.cachedShare = float64(common) / float64(total)
	}
	if v.broken {
		v.reason = breakReason(last, next, announced)
	}
	return v
}

// breakReason names why next's prefix differs from last's: what changed
// between them, the most likely cause first.
func breakReason(last, next *requestPrint, announced string) string {
	switch {
	case last.model != next.model:
		return BoundaryModel
	case last.effort != next.effort:
		return BoundaryEffort
	case last.summary != next.summary:
		return BoundaryCompaction
	case last.compacted != next.compacted:
		return BoundaryPrune
	case last.pins != next.pins:
		return BoundaryPins
	case last.todo != next.todo:
		return BoundaryTodo
	case last.system != next.system:
		return BoundarySystem
	case announced != "":
		return announced
	case last.tools.print() != next.tools.print():
		return BoundaryTools
	case next.history < last.history:
		return BoundaryHistory
	}
	return BoundaryUnexplained
}

// printRequest makes req's print; systems is the count of its system
// messages, pins the pins text, todo its todo message (todoSent),
// history what it was made from.
// last, if not nil, is the last request's print: a message encoded as the
// same bytes (the same slice) keeps its hash, so a step hashes only what
// the request cache encoded anew, not the whole history (the print is on
// the way from Enter to the request).
//
// memo, if not nil, has the hashes of encodings made before (the
// warming's: printmemo.go), in the order they were made.
func printRequest(req provider.Request, systems int, pins, todo string, history []message.Entry, last *requestPrint, memo *printMemo) *requestPrint {
	summary, compacted := summaryAndCompacted(history)
	return printTallied(req, systems, pins, todo, len(history), summary, compacted, last, memo)
}

// printTallied is printRequest of a history of n entries whose newest
// summary and cleared outputs are counted (summaryAndCompacted).
func printTallied(req provider.Request, systems int, pins, todo string, n int, summary string, compacted int, last *requestPrint, memo *printMemo) *requestPrint {
	p := &requestPrint{model: req.Model, effort: req.Effort, msgs: make([]partPrint, len(req.Messages)), enc: make([][]byte, len(req.Messages)), history: n}
	var lastTools *toolsPrint
	if last != nil {
		lastTools = last.tools
	}
	p.tools = toolsPrintOf(req.Tools, lastTools)
	var sys maphash.Hash
	sys.SetSeed(printSeed)
	cur := memoCursor{m: memo}
	for i, m := range req.Messages {
		var b []byte
		if i < len(req.Encoded) {
			b = req.Encoded[i]
		}
		if b == nil {
			b, _ = provider.EncodeMessage(m)
		}
		p.enc[i] = b
		if last != nil && i < len(last.enc) && sameBytes(last.enc[i], b) {
			p.msgs[i] = last.msgs[i]
		} else if h, ok := cur.of(b); ok {
			p.msgs[i] = h
		} else {
			p.msgs[i] = printOf(b)
		}
		if i < systems {
			sys.Write(b)
		}
	}
	p.system = sys.Sum64()
	p.pins = printOf([]byte(pins)).hash
	p.todo = printOf([]byte(todo)).hash
	p.summary, p.compacted = summary, compacted
	return p
}

// summaryAndCompacted is the newest summary's message id in history and
// the count of its tool outputs cleared. It walks the entries and parts
// in place: a copy of each (the range's) cost more than the walk.
func summaryAndCompacted(history []message.Entry) (summary string, compacted int) {
	for i := range history {
		e := &history[i]
		if e.Message.Summary {
			summary = e.Message.ID
		}
		for j := range e.Parts {
			if t := e.Parts[j].Tool; t != nil && !t.CompactedAt.IsZero() {
				compacted++
			}
		}
	}
	return summary, compacted
}

// cacheReads reports whether the provider reported reading input from its
// cache for any step of history. It reads the messages in place (a copy
// of each, 272 bytes, made it 30 µs for 4,000 on the way to a request).
func cacheReads(history []message.Entry) bool {
	for i := len(history) - 1; i >= 0; i-- {
		if m := &history[i].Message; m.Role == message.RoleAssistant && m.Usage.CachedInput > 0 {
			return true
		}
	}
	return false
}

// expectedCached is the part of inputTokens the budget expects from the
// cache: v's share of them, when the provider caches at all.
func expectedCached(inputTokens int64, v verdict, history []message.Entry) int64 {
	if v.cachedShare <= 0 || !cacheReads(history) {
		return 0
	}
	return cachedTokens(inputTokens, v.cachedShare)
}

func printOf(b []byte) partPrint {
	return partPrint{hash: maphash.Bytes(printSeed, b), bytes: len(b)}
}

// sameBytes reports whether a and b are the same slice (not only equal
// bytes): the request cache's encoding of an unchanged message.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// settleRequest judges the step's prepared request against the last one
// sent. At a boundary (a break, or a change announced) the tools found
// since the last one join the tools array, and req's tools are made
// again. conv is what req was made of (finishRequest). It returns the
// verdict; record logs it once the request goes.
func (sp *stepper) settleRequest(req *provider.Request, conv *conversation) verdict {
	systems := conv.systems
	pins, _ := sp.pinsNow()
	history := sp.history()
	summary, compacted := sp.reqc.tally.of(history, sp.historyMark()) // tallymemo.go
	announced := sp.bounds.takeAnnounced()
	memo := sp.bounds.takeMemo()
	printNow := func() *requestPrint {
		return printTallied(*req, systems, pins, conv.todo, len(history), summary, compacted, sp.bounds.lastPrint(), memo)
	}
	v := sp.bounds.judge(printNow(), announced)
	if (v.broken || announced != "") && sp.tt.join() {
		sp.refreshTools()
		if len(req.Tools) > 0 {
			req.Tools = sp.offered().OpenAITools()
		}
		v = sp.bounds.judge(printNow(), announced)
		if !v.broken { // only the join breaks it: the announced change is why
			v.broken, v.at, v.reason = true, -1, announced
		}
	}
	return v
}

// recordBoundary logs v's boundary, if it is one, and makes its request
// the last one sent.
func (sp *stepper) recordBoundary(ctx context.Context, v verdict) {
	sp.bounds.sent(v.print)
	if !v.broken {
		return
	}
	joined, now := sp.tt.joined()
	_ = awaitUserCommit(ctx) // the log's order is the database's
	_ = sp.store.LogEvent(context.WithoutCancel(ctx), sp.sessionID, CacheBoundaryKind, CacheBoundary{
		Reason: v.reason, Model: v.print.model, AtMessage: v.at, Joined: joined, JoinedNow: now})
}
