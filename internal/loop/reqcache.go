package loop

// The request cache. A step's request is the session's whole visible
// history, and between two steps almost none of it changes: so what each
// history entry is sent as — its chat messages (converted and repaired),
// their JSON, and its token estimate taken apart (tokens.EntryCost) — is
// kept from one step to the next, and made again only for the entries
// that changed. A long session's request then costs what its new entries
// cost, plus a walk over the history comparing, not converting.
//
// An entry is found by its message id, and what was kept for it is used
// only while everything its conversion and its estimate read is as it was
// (entryKey: role, summary flag, superseded, and each part's type, text,
// tool call with the result sent for it, attachment). Prune marks,
// compaction, rewind, summary edits, undo and repairs all show as a
// changed key or as another visible history, so none of them has to
// invalidate anything. What the conversion reads besides an entry is
// handled apart: the reasoning round-trip setting (a change drops the kept
// messages), the call ids of the entries before (an entry whose call id
// was used before is repaired again, as RepairPairs would), the images
// sent whole (an entry with an image is converted every time), and the
// estimator (costs are kept only for one whose counts cannot change).
//
// The request's messages are not copied again either: a conversation
// keeps the last one's arrays, and what it sends as the last one did —
// the same system prompts, then the same entries from the same kept
// conversions — stays where it is; only what follows is written, past the
// end of every conversation handed out, so none of them ever changes
// (builtConversation).
//
// The result is exactly the uncached one: ToModelMessages then RepairPairs
// over the whole history, provider.EncodeMessage of each message, and
// EstimateEntries (TestRequestCacheMatchesUncached).

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// requestCache keeps, per history entry, what the entry is sent as. The
// zero value is ready; it is safe for concurrent use.
type requestCache struct {
	mu      sync.Mutex
	entries map[string]*cachedEntry // by message id
	pass    uint64                  // counts the requests built, to drop what none used
	// mode is the conversion options the kept messages were made with
	// (convertMode); est the estimator the kept costs were counted with.
	mode    convertMode
	est     tokens.Estimator
	systems []cachedText
	lastLen int // the messages of the last request, to size the next
	// order holds the entries of the last walk over a history, in their
	// place, so that a walk over the same history finds each entry
	// without a map lookup; next is the walk's own, cursor its place.
	order, next []*cachedEntry
	cursor      int
	built       builtConversation
	// resume is what the last conversation was made from, for the next
	// one to start after the entries it sends as that one did
	// (resumeWalk); walked counts the entries the last walk visited.
	resume walkRecord
	walked int
	// todo is the todo message's memo (todomemo.go), tally the
	// cache-boundary print's count of the history (tallymemo.go).
	todo  todoMemo
	tally tallyMemo
}

// cachedEntry is what is kept for one history entry while its key holds.
type cachedEntry struct {
	id   string
	key  entryKey
	used uint64 // the pass that last used it
	conv *convertedEntry
	cost *pricedEntry
}

// pricedEntry is an entry's cost taken apart, its plain price, and its
// price at the last calibration it was priced at.
type pricedEntry struct {
	cost       tokens.EntryCost
	plain      int64
	ratio      float64
	roundtrip  bool
	calibrated int64
}

func priceEntry(e *message.Entry, est tokens.Estimator) *pricedEntry {
	p := &pricedEntry{cost: tokens.CostOf(e, est), ratio: -1}
	p.plain = p.cost.Price(1, false)
	return p
}

// at is the entry's price at ratio (with its reasoning when roundtrip).
func (p *pricedEntry) at(ratio float64, roundtrip bool) int64 {
	if p.ratio != ratio || p.roundtrip != roundtrip {
		p.ratio, p.roundtrip, p.calibrated = ratio, roundtrip, p.cost.Price(ratio, roundtrip)
	}
	return p.calibrated
}

// convertedEntry is an entry converted (appendEntry) and repaired as if
// no call id had come before it (repairPairs), each message encoded.
type convertedEntry struct {
	msgs    []openai.ChatCompletionMessage
	enc     [][]byte
	callIDs []string // the ids of its calls, for repairPairs' seen set
	repairs int
}

// cachedText is a system prompt and its encoding.
type cachedText struct {
	text string
	enc  []byte
}

// entryKey is what the conversion and the estimate of an entry read.
type entryKey struct {
	role       message.Role
	summary    bool
	superseded bool
	parts      []partKey
}

// partKey is what they read of a part. A tool call's result is kept as
// the text sent (tokens.ToolResult), which follows its status, output and
// prune mark. It is small: a walk compares every part of the history.
type partKey struct {
	typ  message.PartType
	text string
	tool *toolKey           // nil: Tool is nil
	file *message.FileState // a copy; nil: File is nil
	echo []byte             // a step-finish part's echo (echo.go)
}

type toolKey struct {
	callID, name, input, result string
	images                      int
	echo                        []byte
}

func keyOf(e *message.Entry) entryKey {
	k := entryKey{role: e.Message.Role, summary: e.Message.Summary, superseded: e.Message.Error == ErrSuperseded,
		parts: make([]partKey, len(e.Parts))}
	for i := range e.Parts {
		p := &e.Parts[i]
		pk := partKey{typ: p.Type, text: p.Text}
		if t := p.Tool; t != nil {
			pk.tool = &toolKey{callID: t.CallID, name: t.Name, input: t.Input, result: tokens.ToolResult(t), images: len(tokens.ToolImages(t)), echo: t.Echo}
		}
		if p.Step != nil {
			pk.echo = p.Step.Echo
		}
		if p.File != nil {
			f := *p.File
			pk.file = &f
		}
		k.parts[i] = pk
	}
	return k
}

// matches reports whether e reads as k. Strings kept from the same
// history are the same strings (same), so an unchanged entry costs a few
// comparisons a part.
func (k *entryKey) matches(e *message.Entry) bool {
	if k.role != e.Message.Role || k.summary != e.Message.Summary || k.superseded != (e.Message.Error == ErrSuperseded) ||
		len(k.parts) != len(e.Parts) {
		return false
	}
	for i := range e.Parts {
		p, pk := &e.Parts[i], &k.parts[i]
		if !same(pk.text, p.Text) || !same(string(pk.typ), string(p.Type)) || (pk.tool == nil) != (p.Tool == nil) || (pk.file == nil) != (p.File == nil) {
			return false
		}
		if t, tk := p.Tool, pk.tool; t != nil && !(same(tk.callID, t.CallID) && same(tk.name, t.Name) && same(tk.input, t.Input) &&
			same(tk.result, tokens.ToolResult(t)) && bytes.Equal(tk.echo, t.Echo)) {
			return false
		}
		if p.Step != nil && !bytes.Equal(pk.echo, p.Step.Echo) {
			return false
		}
		if p.File != nil && *pk.file != *p.File {
			return false
		}
	}
	return true
}

// same is a == b, answered without reading the bytes when both are the
// same string (the common case: a key holds the history's own strings).
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// walk calls fn with the visible entries of history in the order they
// are sent (tokens.Visible.Entries, without the copy) and what is kept
// for each (lookup). A walk that does not keep (over a history the loop
// only prices: the one an undo would restore) changes nothing kept: an
// entry that is not as it was gets nil. The caller holds c.mu.
func (c *requestCache) walk(v tokens.Visible, keep bool, fn func(e *message.Entry, ce *cachedEntry)) {
	c.walkFrom(v, 0, keep, fn)
}

// walkFrom is walk over v's entries as the places from from on: the
// places before it keep what the last walk found there (v the entries
// after them: resumeWalk).
func (c *requestCache) walkFrom(v tokens.Visible, from int, keep bool, fn func(e *message.Entry, ce *cachedEntry)) {
	c.cursor, c.walked = from, 0
	if keep {
		c.next = append(c.next[:0], c.order[:min(from, len(c.order))]...)
		for len(c.next) < from {
			c.next = append(c.next, nil)
		}
	}
	visit := func(e *message.Entry) { c.walked++; fn(e, c.lookup(e, keep)) }
	for i := range v.Head {
		visit(&v.Head[i])
	}
	if v.Summary != nil {
		visit(v.Summary)
	}
	for i := range v.Kept {
		visit(&v.Kept[i])
	}
	for i := range v.After {
		visit(&v.After[i])
	}
	if keep {
		c.order, c.next = c.next, c.order
	}
}

// lookup returns what is kept for e, the next entry of a walk, emptied
// (or, when not keeping, nil) when e changed since; nil for an entry
// without an id.
func (c *requestCache) lookup(e *message.Entry, keep bool) *cachedEntry {
	id := e.Message.ID
	var ce *cachedEntry
	if k := c.cursor; k < len(c.order) && c.order[k] != nil && c.order[k].id == id {
		ce = c.order[k] // where it was in the last walk
	} else if id != "" {
		if c.entries == nil {
			c.entries = map[string]*cachedEntry{}
		}
		if ce = c.entries[id]; ce == nil && keep {
			ce = &cachedEntry{id: id, key: keyOf(e)}
			c.entries[id] = ce
		}
	}
	c.cursor++
	if !keep {
		if ce == nil || !ce.key.matches(e) {
			return nil
		}
		return ce
	}
	c.next = append(c.next, ce)
	if ce == nil {
		return nil
	}
	if !ce.key.matches(e) {
		*ce = cachedEntry{id: id, key: keyOf(e)}
	}
	ce.used = c.pass
	return ce
}

// hasImage reports whether an entry carries an image (a user's, or a
// tool's): how it is sent depends on the images after it (WholeImages)
// and on its file.
func hasImage(e *message.Entry) bool {
	for i := range e.Parts {
		if tokens.IsImage(&e.Parts[i]) || len(tokens.ToolImages(e.Parts[i].Tool)) > 0 {
			return true
		}
	}
	return false
}

// conversation is what a step's request carries, made in one walk over
// the history: the system prompts' messages and the history's, their
// encodings (nil: not encoded yet), the repairs made, whether a summary
// is sent, and the history's messages priced (requestEstimate's share).
type conversation struct {
	msgs              []openai.ChatCompletionMessage
	enc               [][]byte
	systems           int
	repairs           int
	summarised        bool
	calibrated, plain int64
	// todo is the todo message the request made of it carries (set by
	// finishRequest, read by settleRequest's print: todo.go's walk once).
	todo string
	// first and n are the history it was made from (its array and its
	// length), to tell whether that is still the history.
	first *message.Entry
	n     int
}

// current reports whether c was made from history as it is: nothing
// appended, removed or reloaded since. The loop edits no entry in place
// between preparing a step's request and sending it.
func (c *conversation) current(history []message.Entry) bool {
	return len(history) == c.n && (c.n == 0 || &history[0] == c.first)
}

// conversation makes the conversation of history after the system
// prompts: ToModelMessages then RepairPairs, and the visible entries
// priced as calc prices them (calc.EstimateEntries) and plainly
// (tokens.EstimateEntries with est).
//
// The messages that follow unchanged from the last conversation (its
// system prompts, then its entries while each is the same entry sent the
// same way: built) are not copied again: the arrays are the last
// conversation's, extended past its end, when nothing before its end
// changes; otherwise new arrays start with a copy of what did not change.
// A conversation handed out never changes: later ones write only past its
// end, and its slices have no room to append into.
func (c *requestCache) conversation(system []string, history []message.Entry, mark historyMark, opt ConvertOptions, calc *tokens.Calculator, est tokens.Estimator) *conversation {
	sysEnc := c.systemEncodings(system)
	c.mu.Lock()
	defer c.mu.Unlock()
	cv := &conversation{systems: len(system), n: len(history)}
	if len(history) > 0 {
		cv.first = &history[0]
	}
	cest, ratio, roundtrip := calc.Pricing()
	price := cachedCounts(est) && cest == est
	record := walkRecord{mark: mark, ratio: ratio, roundtrip: roundtrip, valid: mark.lock != nil && price}
	from, tail := c.resumeWalk(history, record, opt, est) // reqresume.go
	var v tokens.Visible                                  // what is walked
	if from > 0 {
		v = tokens.Visible{After: tail}
		record.visible, record.summarised = from+len(tail), c.resume.summarised
	} else {
		v = tokens.VisibleHistory(history)
		record.visible, record.summarised = v.Len(), v.Summary != nil
		c.pass++ // a whole walk: what it does not use may go
	}
	if c.mode != modeOf(opt) {
		for _, ce := range c.entries {
			ce.conv = nil
		}
		c.mode = modeOf(opt)
	}
	if price && c.est != est {
		for _, ce := range c.entries {
			ce.cost = nil
		}
		c.est = est
	}
	var whole map[*message.FileState]bool
	wholeImagesOnce := func() map[*message.FileState]bool {
		if whole == nil {
			whole = wholeImages(tokens.VisibleHistory(history).Entries())
		}
		return whole
	}
	b := &c.built
	// Entries are reused while intact: the same entry at the same place
	// as in the last conversation, sent from the same kept conversion.
	intact := true
	var (
		msgs []openai.ChatCompletionMessage
		enc  [][]byte
		seen map[string]bool
		k    int // the walk's place
	)
	if from > 0 { // the first from entries as the last conversation sent them
		k = from
		cv.calibrated, cv.plain, cv.repairs = b.at[from-1].sums.calibrated, b.at[from-1].sums.plain, b.at[from-1].sums.repairs
		record.images = c.resume.images
	}
	sums := func() builtSums { return builtSums{cv.calibrated, cv.plain, cv.repairs} }
	fresh := func(e *message.Entry, ce *cachedEntry, whole map[*message.FileState]bool) {
		n := len(msgs)
		var r int
		msgs, r = repairPairs(msgs, appendEntry(nil, e, whole, opt), seen)
		cv.repairs += r
		for range len(msgs) - n {
			enc = append(enc, nil)
		}
		encodeEchoes(msgs[n:], enc[n:], entryEcho(e, opt))
		b.at = append(b.at, builtEntry{ce: ce, end: len(msgs) - len(system), sums: sums()})
	}
	c.walkFrom(v, from, true, func(e *message.Entry, ce *cachedEntry) {
		defer func() { k++ }()
		if price {
			var p *pricedEntry
			if ce != nil {
				if ce.cost == nil {
					ce.cost = priceEntry(e, est)
				}
				p = ce.cost
			} else {
				p = priceEntry(e, est)
			}
			cv.calibrated += p.at(ratio, roundtrip)
			cv.plain += p.plain
		}
		if intact {
			if k < len(b.at) && ce != nil && ce.conv != nil && b.at[k].ce == ce && b.at[k].conv == ce.conv {
				cv.repairs += ce.conv.repairs
				b.at[k].sums = sums()
				return
			}
			msgs, enc, seen = c.diverge(k, system, sysEnc, record.visible)
			intact = false
		}
		if hasImage(e) {
			record.images = true
			fresh(e, ce, wholeImagesOnce())
			return
		}
		if ce == nil {
			fresh(e, nil, nil)
			return
		}
		if ce.conv == nil {
			ce.conv = convertEntry(e, opt)
		}
		for _, id := range ce.conv.callIDs {
			if seen[id] {
				// An id used before: repaired with what came before.
				fresh(e, ce, nil)
				return
			}
		}
		for _, id := range ce.conv.callIDs {
			seen[id] = true
		}
		msgs = append(msgs, ce.conv.msgs...)
		enc = append(enc, ce.conv.enc...)
		cv.repairs += ce.conv.repairs
		b.at = append(b.at, builtEntry{ce: ce, conv: ce.conv, end: len(msgs) - len(system), sums: sums()})
	})
	if intact {
		msgs, enc, _ = c.diverge(k, system, sysEnc, record.visible)
	}
	if !price {
		entries := v.Entries()
		cv.calibrated, cv.plain = calc.EstimateEntries(entries), tokens.EstimateEntries(entries, est)
	}
	c.lastLen = len(msgs) - len(system)
	recordWalk(&record, history)
	c.resume = record
	if n := len(c.entries); from == 0 && n > 2*v.Len()+64 {
		for id, ce := range c.entries {
			if ce.used != c.pass {
				delete(c.entries, id)
			}
		}
	}
	b.msgs, b.enc, b.system = msgs, enc, system
	n := len(msgs)
	cv.msgs, cv.enc, cv.summarised = msgs[:n:n], enc[:n:n], record.summarised
	return cv
}

// builtConversation is what the last conversation sent: its arrays, its
// system prompts, and per place in the walk over the history what was
// sent for that entry; seen is the call ids of the entries in at.
type builtConversation struct {
	msgs    []openai.ChatCompletionMessage
	enc     [][]byte
	system  []string
	systems int
	at      []builtEntry
	seen    map[string]bool
}

// builtEntry is an entry of the last conversation: what was kept for it
// (nil: nothing), the kept conversion it was sent from (nil: converted
// for that conversation alone), and where its messages end, counted
// from the first after the system prompts.
type builtEntry struct {
	ce   *cachedEntry
	conv *convertedEntry
	end  int
	sums builtSums // the conversation's, up to and with this entry
}

// builtSums is what a conversation counted up to an entry: its prices
// and its repairs.
type builtSums struct {
	calibrated, plain int64
	repairs           int
}

// diverge starts the arrays of a conversation that sends the last one's
// first k entries as it did and then something else (or nothing), of
// about entries entries: what those k were sent as is kept, in the last
// conversation's arrays when nothing before their end changes (the
// system prompts included). It returns them and the call ids of those k
// entries. The caller holds c.mu.
func (c *requestCache) diverge(k int, system []string, sysEnc [][]byte, entries int) ([]openai.ChatCompletionMessage, [][]byte, map[string]bool) {
	b := &c.built
	keep := b.systems // the messages kept from the last conversation
	if k > 0 {
		keep += b.at[k-1].end
	}
	sameSystem := len(system) == len(b.system)
	for i := 0; sameSystem && i < len(system); i++ {
		sameSystem = same(system[i], b.system[i])
	}
	var msgs []openai.ChatCompletionMessage
	var enc [][]byte
	if sameSystem && keep == len(b.msgs) && len(b.msgs) > 0 {
		// Every conversation handed out ends at or before keep: append
		// writes past all of them.
		msgs, enc = b.msgs, b.enc
	} else {
		// A history entry is one or two messages and more with tools;
		// room for the next steps' messages.
		size := len(system) + max(c.lastLen, 2*entries)
		size += size/8 + 16
		msgs = make([]openai.ChatCompletionMessage, 0, size)
		for _, s := range system {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s})
		}
		enc = append(make([][]byte, 0, size), sysEnc...)
		if keep > b.systems {
			msgs = append(msgs, b.msgs[b.systems:keep]...)
			enc = append(enc, b.enc[b.systems:keep]...)
		}
	}
	if k < len(b.at) || b.seen == nil {
		// Only the call ids of the entries kept.
		if b.seen == nil {
			b.seen = map[string]bool{}
		}
		clear(b.seen)
		for _, be := range b.at[:k] {
			for _, id := range be.conv.callIDs {
				b.seen[id] = true
			}
		}
	}
	b.at, b.systems = b.at[:k], len(system)
	return msgs, enc, b.seen
}

// convertEntry converts and repairs one entry on its own and encodes its
// messages. A message that cannot be encoded is left to the provider
// (which reports the error).
func convertEntry(e *message.Entry, opt ConvertOptions) *convertedEntry {
	conv := appendEntry(nil, e, nil, opt)
	ce := &convertedEntry{}
	for _, m := range conv {
		for _, tc := range m.ToolCalls {
			if tc.ID != "" {
				ce.callIDs = append(ce.callIDs, tc.ID)
			}
		}
	}
	ce.msgs, ce.repairs = repairPairs(make([]openai.ChatCompletionMessage, 0, len(conv)), conv, map[string]bool{})
	ce.enc = make([][]byte, len(ce.msgs))
	for i, m := range ce.msgs {
		if b, err := provider.EncodeMessage(m); err == nil {
			ce.enc[i] = b
		}
	}
	encodeEchoes(ce.msgs, ce.enc, entryEcho(e, opt))
	return ce
}

// systemEncodings returns the encodings of the system prompts' messages.
func (c *requestCache) systemEncodings(system []string) [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([][]byte, len(system))
	kept := c.systems
	c.systems = make([]cachedText, len(system))
	for i, s := range system {
		if i < len(kept) && kept[i].text == s {
			c.systems[i] = kept[i]
		} else {
			b, _ := provider.EncodeMessage(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s})
			c.systems[i] = cachedText{text: s, enc: b}
		}
		out[i] = c.systems[i].enc
	}
	return out
}

// cachedCounts reports whether an estimator's counts can be kept: it
// gives the same count for the same text for the whole session (chars/4,
// or a tokenizer once its tables are loaded).
func cachedCounts(est tokens.Estimator) bool {
	switch e := est.(type) {
	case tokens.Chars:
		return true
	case *tokens.Tokenizer:
		return e.Loaded()
	}
	return false
}

// estimate prices the visible entries of history as the calculator does
// (calc.EstimateEntries) and plainly (tokens.EstimateEntries with est).
// keep says whether what it prices is kept: false for a history that is
// not the session's (what an undo would restore), whose entries would
// otherwise push out the session's own.
func (c *requestCache) estimate(history []message.Entry, keep bool, calc *tokens.Calculator, est tokens.Estimator) (calibrated, plain int64) {
	cest, ratio, roundtrip := calc.Pricing()
	if !cachedCounts(est) || cest != est {
		v := Visible(history)
		return calc.EstimateEntries(v), tokens.EstimateEntries(v, est)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.est != est {
		for _, ce := range c.entries {
			ce.cost = nil
		}
		c.est = est
		c.resume.valid = false // its sums were counted by the other estimator (reqresume.go)
	}
	c.walk(tokens.VisibleHistory(history), keep, func(e *message.Entry, ce *cachedEntry) {
		var p *pricedEntry
		switch {
		case ce != nil && ce.cost != nil:
			p = ce.cost
		case ce != nil && keep:
			ce.cost = priceEntry(e, est)
			p = ce.cost
		default:
			p = priceEntry(e, est)
		}
		calibrated += p.at(ratio, roundtrip)
		plain += p.plain
	})
	return calibrated, plain
}
