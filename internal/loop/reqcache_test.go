package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// uncachedRequest is the request buildRequest made before the request
// cache: the whole history converted and repaired again, nothing encoded.
func uncachedRequest(r *Runner) provider.Request {
	var msgs []openai.ChatCompletionMessage
	for _, s := range r.state.system {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s})
	}
	conv, _ := RepairPairs(ToModelMessages(r.state.history, r.stepper.convertOptions()))
	if pins, _ := pinsNow(r.state.pinsCopy(), r.mp.est); pins != "" {
		at := pinsAt(conv, tokens.VisibleHistory(r.state.history).Summary != nil)
		conv = slices.Insert(conv, at, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: pins})
	}
	msgs = append(msgs, conv...)
	req := provider.Request{Model: r.mp.model, Messages: msgs, MaxTokens: int(r.mp.info.MaxOutput),
		CacheBreakpoints: cacheBreakpoints(r.mp.info.Cache, msgs, len(r.state.system))}
	if !r.stepper.toolsOff(r.mp.model) {
		req.Tools = r.stepper.offered().OpenAITools()
	}
	return req
}

// uncachedEstimate is requestEstimate before the request cache.
func uncachedEstimate(r *Runner, history []message.Entry) int64 {
	sys, tl := r.fixedTokens()
	_, pins := pinsNow(r.state.pinsCopy(), r.mp.est)
	v := Visible(history)
	return sys + tl + pins + max(r.calcp.Load().EstimateEntries(v), tokens.EstimateEntries(v, r.mp.est))
}

// bodyChecker is a provider that, before each step's request goes to the
// session's server, sends it and the uncached request built from the same
// history to two servers of its own, so that their bodies can be
// compared byte for byte; it compares the estimates too. It runs on the
// loop's goroutine, which owns the history then.
type bodyChecker struct {
	t      *testing.T
	inner  provider.Provider
	r      *Runner
	cached *pt.Server
	ref    *pt.Server
	pc, pr provider.Provider

	mu      sync.Mutex
	checked int
	last    provider.Request // the last step's request
}

func newBodyChecker(t *testing.T, inner provider.Provider) *bodyChecker {
	c := &bodyChecker{t: t, inner: inner, cached: pt.New(t), ref: pt.New(t)}
	for _, s := range []*pt.Server{c.cached, c.ref} {
		s.Handle(func(pt.Request) pt.Step { return pt.Text("ok") })
	}
	c.pc = provider.NewOpenAI(provider.Config{BaseURL: c.cached.URL, APIKey: "sk-test-secret"})
	c.pr = provider.NewOpenAI(provider.Config{BaseURL: c.ref.URL, APIKey: "sk-test-secret"})
	return c
}

func (c *bodyChecker) Stream(ctx context.Context, req provider.Request) (provider.Stream, error) {
	if req.Encoded != nil { // a step's request, not a summary's or a title's
		c.check(ctx, req)
	}
	return c.inner.Stream(ctx, req)
}

func (c *bodyChecker) check(ctx context.Context, req provider.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = req
	r := c.r
	// stream appended the new (empty) assistant message after building
	// the request; it is sent as nothing.
	ref := uncachedRequest(r)
	if !reflect.DeepEqual(req.Messages, ref.Messages) {
		c.t.Errorf("request %d: the cached messages differ from the uncached ones", c.checked)
	}
	if got, want := r.comp.requestEstimate(r.state.history), uncachedEstimate(r, r.state.history); got != want {
		c.t.Errorf("request %d: estimate %d, uncached %d", c.checked, got, want)
	}
	for _, send := range []struct {
		p   provider.Provider
		req provider.Request
	}{{c.pc, req}, {c.pr, ref}} {
		st, err := send.p.Stream(ctx, send.req)
		if err != nil {
			c.t.Fatalf("request %d: %v", c.checked, err)
		}
		st.Close()
	}
	got, want := c.cached.Requests()[c.checked].Body, c.ref.Requests()[c.checked].Body
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		c.t.Errorf("request %d: the body differs from the uncached one at byte %d:\n%s\n%s", c.checked, i,
			got[max(i-200, 0):min(i+200, len(got))], want[max(i-200, 0):min(i+200, len(want))])
	}
	c.checked++
}

// TestRequestCacheMatchesUncached plays a long session — prunes and
// compactions in a small window, pins, a retried step, rewinds and their
// redo, an edited summary, an undone compaction, a model that gets its
// reasoning back — and checks that every step's request body is byte for
// byte the one the history converted and encoded from scratch gives, and
// that the estimates agree.
func TestRequestCacheMatchesUncached(t *testing.T) {
	const window = 16384
	sim := newSimServer(window, 7)
	var chk *bodyChecker
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "sim-16k"
		c.Models["sim-16k"] = config.ModelInfo{ContextWindow: window, MaxOutput: 2048}
		c.Models["sim-16k-think"] = config.ModelInfo{ContextWindow: window, MaxOutput: 2048, ReasoningRoundtrip: true}
		o.Observer = nil
		chk = newBodyChecker(t, o.Provider)
		o.Provider = chk
	})
	chk.r = h.r
	var failNext, think bool
	var mu sync.Mutex
	h.srv.Handle(func(req pt.Request) pt.Step {
		mu.Lock()
		defer mu.Unlock()
		if failNext && !isSummaryRequest(req.Chat.Messages) {
			failNext = false
			return pt.HTTPError(503, nil, `{"error":{"message":"overloaded","type":"server_error"}}`)
		}
		st := sim.handle(req)
		if think && st.Status == 0 {
			st.Chunks = append([]pt.Chunk{pt.ReasoningChunk("Let me think about the next change.", "")}, st.Chunks...)
		}
		return st
	})
	ctx := context.Background()
	turn := func(i int) {
		t.Helper()
		if res := h.turn(fmt.Sprintf("Turn %d: improve the next function and run the tests.", i)); res.Err != nil {
			t.Fatalf("turn %d: %v", i, res.Err)
		}
	}
	summarised, undone := false, 0
	for i := 1; i <= 70; i++ {
		switch i {
		case 8:
			if _, err := h.r.AddPin(ctx, "Use tabs, never spaces.", ""); err != nil {
				t.Fatal(err)
			}
		case 12:
			mu.Lock()
			failNext = true // a retried step: its first attempt is superseded
			mu.Unlock()
		case 20:
			turns := Turns(h.r.History())
			if _, err := h.r.Rewind(ctx, turns[len(turns)-2].MessageID, RewindOptions{Mode: message.RewindConversation}); err != nil {
				t.Fatal(err)
			}
		case 21:
			turns := Turns(h.r.History())
			if _, err := h.r.Rewind(ctx, turns[len(turns)-1].MessageID, RewindOptions{Mode: message.RewindConversation}); err != nil {
				t.Fatal(err)
			}
			if _, err := h.r.Redo(ctx); err != nil {
				t.Fatal(err)
			}
		case 40:
			if err := h.r.SetModel(ctx, "sim-16k-think"); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			think = true
			mu.Unlock()
		case 55:
			if err := h.r.SetModel(ctx, "sim-16k"); err != nil {
				t.Fatal(err)
			}
		}
		if text, _, err := h.r.Summary(); err == nil && text != "" && !summarised {
			summarised = true
			if err := h.r.EditSummary(ctx, text+"\n\nAlso: the user prefers small commits."); err != nil {
				t.Fatal(err)
			}
		}
		if i == 50 || i == 60 {
			_, err := h.r.UndoCompaction(ctx)
			var tooLarge *UndoTooLargeError
			switch {
			case err == nil:
				undone++
			case errors.Is(err, ErrNothingToUndo), errors.As(err, &tooLarge):
			default:
				t.Fatal(err)
			}
		}
		turn(i)
	}
	h.r.Close()
	chk.mu.Lock()
	defer chk.mu.Unlock()
	if chk.checked < 100 {
		t.Errorf("%d requests checked", chk.checked)
	}
	if !summarised {
		t.Error("no compaction in the session")
	}
	t.Logf("%d requests checked; %d compactions undone", chk.checked, undone)
	pruned := false
	for _, e := range h.r.History() {
		for _, p := range e.Parts {
			if p.Tool != nil && !p.Tool.CompactedAt.IsZero() {
				pruned = true
			}
		}
	}
	if !pruned {
		t.Error("nothing pruned in the session")
	}
}

// An entry that did not change is not converted again; one that changed
// (pruned) is, and only it.
func TestRequestCacheConvertsOnlyWhatChanged(t *testing.T) {
	var h []message.Entry
	for i := range 50 {
		h = append(h, message.Entry{Message: message.Message{ID: fmt.Sprintf("u%03d", i), Role: message.RoleUser},
			Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d", i)}}},
			message.Entry{Message: message.Message{ID: fmt.Sprintf("a%03d", i), Role: message.RoleAssistant},
				Parts: []message.Part{{Type: message.PartText, Text: "reading"}, {Type: message.PartTool, Tool: &message.ToolState{
					CallID: fmt.Sprintf("c%d", i), Name: "read", Status: message.ToolCompleted, Input: `{}`, Output: "contents"}}}})
	}
	var c requestCache
	calc := tokens.NewCalculator(tokens.Options{Window: 100000}, tokens.Chars{})
	build := func() []openai.ChatCompletionMessage {
		cv := c.conversation(nil, h, historyMark{}, ConvertOptions{}, calc, tokens.Chars{})
		msgs, enc := cv.msgs, cv.enc
		for i, b := range enc {
			want, _ := provider.EncodeMessage(msgs[i])
			if !bytes.Equal(b, want) {
				t.Fatalf("message %d encoded as %s, want %s", i, b, want)
			}
		}
		return msgs
	}
	build()
	convs := map[string]*convertedEntry{}
	for id, ce := range c.entries {
		convs[id] = ce.conv
	}
	// Pruned in place, as markCompacted does.
	st := *h[7].Parts[1].Tool
	st.CompactedAt = time.Now()
	h[7].Parts[1].Tool = &st
	msgs := build()
	for id, ce := range c.entries {
		if changed := ce.conv != convs[id]; changed != (id == "a003") {
			t.Errorf("%s converted again: %v", id, changed)
		}
	}
	want, _ := RepairPairs(ToModelMessages(h, ConvertOptions{}))
	if !reflect.DeepEqual(msgs, want) {
		t.Error("the cached conversion differs from ToModelMessages")
	}
	if msgs[3*3+2].Content != message.ClearedOutput {
		t.Errorf("the pruned output is sent as %q", msgs[3*3+2].Content)
	}
	// Pricing a history the session does not have (what an undo would
	// restore) keeps nothing of it: the session's entries stay as kept.
	for id, ce := range c.entries {
		convs[id] = ce.conv
	}
	restored := append([]message.Entry(nil), h...)
	restored[7].Parts = []message.Part{restored[7].Parts[0], {Type: message.PartTool, Tool: &message.ToolState{
		CallID: "c3", Name: "read", Status: message.ToolCompleted, Input: `{}`, Output: "contents"}}}
	if got, _ := c.estimate(restored, false, calc, tokens.Chars{}); got != calc.EstimateEntries(Visible(restored)) {
		t.Errorf("restored history priced %d, want %d", got, calc.EstimateEntries(Visible(restored)))
	}
	build()
	for id, ce := range c.entries {
		if ce.conv != convs[id] {
			t.Errorf("%s converted again after pricing another history", id)
		}
	}
}

// cacheHistoryFrom is historyFrom with what it lacks for the cache: call
// ids used again in a later message (or twice in one), user messages with
// attachments and images, and messages taken back by a rewind.
func cacheHistoryFrom(data []byte) []message.Entry {
	h := historyFrom(data)
	for i := range h {
		b := byte(i)
		if len(data) > 0 {
			b = data[i%len(data)]
		}
		e := &h[i]
		for j := range e.Parts {
			if t := e.Parts[j].Tool; t != nil && b%5 == 0 {
				st := *t
				st.CallID = fmt.Sprintf("call_dup%d", b%3)
				e.Parts[j].Tool = &st
			}
		}
		switch {
		case e.Message.Role == message.RoleUser && !e.Message.Synthetic && b%7 == 1:
			e.Parts = append(e.Parts, imageEntry("", "", fmt.Sprintf("i%d.png", i)).Parts[1])
		case e.Message.Role == message.RoleUser && !e.Message.Synthetic && b%7 == 2:
			e.Parts = append(e.Parts, message.Part{Type: message.PartFile, File: &message.FileState{
				Kind: message.AttachFile, Path: "main.go", Content: "package main <b>"}})
		case b%11 == 3:
			e.Message.RewindID = "rw"
		}
	}
	return h
}

// FuzzRequestCache checks the cache against the uncached conversion, the
// encoding and the estimate, over any history, built after a shorter one
// (the cache then holds part of it) and again after some of its entries
// changed in place. Each history is given with its mark as the session
// counts it (historyedits.go): a conversation over a history only
// appended to since the last one starts where that one ended
// (reqresume.go), and must make the same request.
func FuzzRequestCache(f *testing.F) {
	f.Add([]byte{0, 2, 3, 4, 5, 0, 2, 4, 0}, uint8(3))
	f.Add([]byte{0, 2, 4, 7, 8, 0, 2, 13, 22, 0, 10, 2, 5, 5, 4}, uint8(1))
	f.Add([]byte{2, 4, 4, 4, 8, 2, 6, 1, 0, 2, 4, 5, 15, 8, 1, 2, 3}, uint8(2))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, change uint8) {
		url := func(f *message.FileState) (string, error) {
			if strings.HasPrefix(f.Path, "i1") {
				return "", errors.New("gone")
			}
			return "data:image/png;base64," + f.Path, nil
		}
		for i, opt := range []ConvertOptions{{}, {ReasoningRoundtrip: true, ImageURL: url}, {}} {
			var est tokens.Estimator = tokens.Chars{}
			if i == 2 {
				est = wordCount{} // counts that are not kept
			}
			var c requestCache
			calc := tokens.NewCalculator(tokens.Options{Window: 100000, ReasoningRoundtrip: opt.ReasoningRoundtrip}, est)
			// What each conversation was when it was made: a later one
			// must not change it (they share arrays).
			type made struct {
				cv   *conversation
				msgs []openai.ChatCompletionMessage
				enc  [][]byte
			}
			var all []made
			var edits historyLock // the session's count of edits
			check := func(h []message.Entry, system ...string) {
				t.Helper()
				cv := c.conversation(system, h, historyMark{edits: edits.edits.Load(), n: len(h), lock: &edits}, opt, calc, est)
				msgs, enc, repairs, summarised := cv.msgs[len(system):], cv.enc[len(system):], cv.repairs, cv.summarised
				for i, s := range system {
					if m := cv.msgs[i]; m.Role != openai.ChatMessageRoleSystem || m.Content != s {
						t.Fatalf("system message %d is %+v", i, m)
					}
				}
				all = append(all, made{cv, slices.Clone(cv.msgs), slices.Clone(cv.enc)})
				want, wantRepairs := RepairPairs(ToModelMessages(h, opt))
				if (len(msgs) > 0 || len(want) > 0) && !reflect.DeepEqual(msgs, want) || repairs != wantRepairs {
					t.Fatalf("cached %d messages (%d repairs), uncached %d (%d)", len(msgs), repairs, len(want), wantRepairs)
				}
				if summarised != (tokens.VisibleHistory(h).Summary != nil) {
					t.Fatalf("summarised %v", summarised)
				}
				for i, b := range enc {
					if b == nil {
						continue
					}
					if w, _ := provider.EncodeMessage(msgs[i]); !bytes.Equal(b, w) {
						t.Fatalf("message %d encoded as %s, want %s", i, b, w)
					}
				}
				cal, plain := c.estimate(h, true, calc, est)
				if cv.calibrated != cal || cv.plain != plain {
					t.Fatalf("conversation priced %d/%d, estimate %d/%d", cv.calibrated, cv.plain, cal, plain)
				}
				if rc, rp := c.estimate(h, false, calc, est); rc != cal || rp != plain {
					t.Fatalf("estimate without keeping %d/%d, with %d/%d", rc, rp, cal, plain)
				}
				v := Visible(h)
				if cal != calc.EstimateEntries(v) || plain != tokens.EstimateEntries(v, est) {
					t.Fatalf("estimate %d/%d, uncached %d/%d", cal, plain, calc.EstimateEntries(v), tokens.EstimateEntries(v, est))
				}
			}
			full := cacheHistoryFrom(data)
			check(full[:len(full)/2], "stable", "status: clean")
			check(full[:len(full)*3/4], "stable", "status: clean")
			check(full, "stable", "status: clean")
			edits.edited(0)
			// Changed in place, as the loop changes its history: pruned,
			// superseded, a text rewritten, a message taken back.
			for i := range full {
				if (i+int(change))%4 != 0 {
					continue
				}
				e := &full[i]
				for j := range e.Parts {
					if tl := e.Parts[j].Tool; tl != nil {
						st := *tl
						st.CompactedAt = time.Unix(2, 0)
						e.Parts[j].Tool = &st
					}
					if e.Parts[j].Type == message.PartText && change%2 == 0 {
						e.Parts[j].Text += " (edited)"
					}
				}
				switch change % 3 {
				case 0:
					if e.Message.Role == message.RoleAssistant {
						e.Message.Error = ErrSuperseded
					}
				case 1:
					e.Message.RewindID = "rw2"
				}
			}
			check(full, "stable", "status: clean")
			check(full, "stable", "status: 1 file changed")
			check(full[:len(full)-len(full)/3], "stable", "status: 1 file changed")
			// The calibration moves; the kept costs are priced again.
			calc.Observe(message.Usage{Input: 5000, Output: 10}, 3000)
			check(full)
			check(full)
			// Again, counted ahead by the warming (repriceAhead).
			calc.Observe(message.Usage{Input: 7000, Output: 10}, 3000)
			c.repriceAhead(calc)
			check(full)
			// The newest entry written in place, as a step writes its
			// own entry while its tools run: no edit counted.
			if n := len(full); n > 0 {
				last := &full[n-1]
				last.Parts = append(slices.Clone(last.Parts), message.Part{Type: message.PartText, Text: "and one more thing"})
				check(full)
				// And replaced, as replaceEntry does: an edit of the
				// newest entries only.
				full[n-1] = copyEntry(full[n-1])
				full[n-1].Parts[0].Text += " (replaced)"
				full[n-1].Message.Summary = change%5 == 1
				edits.edited(n - 1)
				check(full)
			}
			for i, m := range all {
				if !reflect.DeepEqual(m.cv.msgs, m.msgs) || !reflect.DeepEqual(m.cv.enc, m.enc) {
					t.Fatalf("conversation %d changed after it was made", i)
				}
			}
		}
	})
}

// A call id used again by a later message (or twice in one) is repaired
// as RepairPairs repairs it, whether the entries were kept or not.
func TestRequestCacheRepairsReusedCallIDs(t *testing.T) {
	call := func(id string) message.Part {
		return message.Part{Type: message.PartTool, Tool: &message.ToolState{CallID: id, Name: "ls", Status: message.ToolCompleted, Input: "{}", Output: "x"}}
	}
	user := func(id string) message.Entry {
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartText, Text: "go on"}}}
	}
	h := []message.Entry{user("1"),
		{Message: message.Message{ID: "2", Role: message.RoleAssistant}, Parts: []message.Part{call("c1"), call("c2")}},
		user("3"),
		{Message: message.Message{ID: "4", Role: message.RoleAssistant}, Parts: []message.Part{call("c9")}},
		user("5"),
		{Message: message.Message{ID: "6", Role: message.RoleAssistant}, Parts: []message.Part{{Type: message.PartText, Text: "again"}, call("c1"), call("c3"), call("c3")}},
	}
	var c requestCache
	for round := range 3 {
		cv := c.conversation(nil, h, historyMark{}, ConvertOptions{}, tokens.NewCalculator(tokens.Options{}, tokens.Chars{}), tokens.Chars{})
		msgs, repairs := cv.msgs, cv.repairs
		want, wantRepairs := RepairPairs(ToModelMessages(h, ConvertOptions{}))
		if !reflect.DeepEqual(msgs, want) || repairs != wantRepairs {
			t.Fatalf("round %d: %d messages, %d repairs; uncached %d, %d", round, len(msgs), repairs, len(want), wantRepairs)
		}
		if round == 1 { // the first call id is another now: the later one is sent again
			h[1].Parts[0] = call("c0")
		}
	}
}

// wordCount is an estimator whose counts the request cache does not keep.
type wordCount struct{}

func (wordCount) Count(text string) int { return len(strings.Fields(text)) }

// A long session's cache is filled while the user types the first
// message (PrefetchEnvironment): the first request converts nothing it
// holds, and its body is still the uncached one. A message sent while
// the warming runs stops it, and the request is the same.
func TestRequestCacheWarmsWhileTyping(t *testing.T) {
	for _, wait := range []bool{true, false} {
		var chk *bodyChecker
		h := newHarnessWith(t, func(o *Options, _ *config.Config) {
			chk = newBodyChecker(t, o.Provider)
			o.Provider = chk
		}, pt.Text("done"))
		chk.r = h.r
		h.r.state.history = longHistory(t, h, 300)
		h.r.PrefetchEnvironment()
		if !wait {
			if res := h.turn("and now?"); res.Err != nil {
				t.Fatal(res.Err)
			}
			h.r.Close()
			continue
		}
		h.r.stepper.warm.running.Wait()
		h.r.stepper.reqc.mu.Lock()
		kept := warmedConversions(t, h.r, false)
		h.r.stepper.reqc.mu.Unlock()
		if res := h.turn("and now?"); res.Err != nil {
			t.Fatal(res.Err)
		}
		assertNotConvertedAgain(t, h.r, kept, "the first request")
		if chk.checked != 1 {
			t.Errorf("%d requests checked", chk.checked)
		}
	}
}

// The cache is warmed again for each message typed, not only the first:
// entries changed since the last request (outputs a prune cleared at the
// end of the turn) are converted while the next message is typed, and
// the request after it converts none of them.
func TestRequestCacheWarmsAgainAfterAPrune(t *testing.T) {
	var chk *bodyChecker
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		chk = newBodyChecker(t, o.Provider)
		o.Provider = chk
	}, pt.Text("done"), pt.Text("again"))
	chk.r = h.r
	h.r.state.history = longHistory(t, h, 300)
	for _, e := range h.r.state.history { // nothing pruned yet: more than warmFrom entries change below
		for j, p := range e.Parts {
			if p.Tool != nil {
				st := *p.Tool
				st.CompactedAt = time.Time{}
				e.Parts[j].Tool = &st
			}
		}
	}
	h.r.PrefetchEnvironment()
	h.r.stepper.warm.running.Wait()
	if res := h.turn("and now?"); res.Err != nil {
		t.Fatal(res.Err)
	}
	var ids []string
	for _, e := range h.r.History() {
		for _, p := range e.Parts {
			if p.Tool != nil && p.Tool.CompactedAt.IsZero() {
				ids = append(ids, p.ID)
			}
		}
	}
	if len(ids) < 120 {
		t.Fatalf("%d outputs left to prune", len(ids))
	}
	if err := h.r.comp.markCompacted(context.Background(), ids); err != nil {
		t.Fatal(err)
	}
	h.r.PrefetchEnvironment() // the next message's first key
	h.r.stepper.warm.running.Wait()
	h.r.stepper.reqc.mu.Lock()
	// The request was made ahead (prebuildRequest): the step's request
	// sends the history from the same array, nothing copied.
	prebuilt := h.r.stepper.reqc.built
	if len(prebuilt.at) != len(Visible(h.r.state.history)) {
		t.Errorf("prebuilt %d entries of %d", len(prebuilt.at), len(Visible(h.r.state.history)))
	}
	kept := warmedConversions(t, h.r, true)
	h.r.stepper.reqc.mu.Unlock()
	if res := h.turn("and then?"); res.Err != nil {
		t.Fatal(res.Err)
	}
	assertNotConvertedAgain(t, h.r, kept, "the request")
	if chk.checked != 2 {
		t.Errorf("%d requests checked", chk.checked)
	}
	sent, s := chk.last.Messages, prebuilt.systems
	sameSystem := len(sent) > s && slices.EqualFunc(sent[:s], prebuilt.msgs[:s], func(a, b openai.ChatCompletionMessage) bool { return a.Content == b.Content })
	if sameSystem && &sent[s] != &prebuilt.msgs[s] {
		t.Error("the step's request copied the prebuilt messages")
	}
}

// warmedConversions checks that every visible entry of r's history is in
// its request cache, converted and priced (and, with asIs, keyed as the
// entry is now), and returns the conversions by message id. The caller
// holds r.stepper.reqc.mu.
func warmedConversions(t *testing.T, r *Runner, asIs bool) map[string]*convertedEntry {
	t.Helper()
	kept := map[string]*convertedEntry{}
	for _, e := range Visible(r.state.history) {
		ce := r.stepper.reqc.entries[e.Message.ID]
		if ce == nil || ce.conv == nil || ce.cost == nil || asIs && !ce.key.matches(&e) {
			t.Fatalf("entry %s not warmed as it is", e.Message.ID)
		}
		kept[e.Message.ID] = ce.conv
	}
	return kept
}

// assertNotConvertedAgain checks that what (a request) kept the
// conversions warmedConversions saw.
func assertNotConvertedAgain(t *testing.T, r *Runner, kept map[string]*convertedEntry, what string) {
	t.Helper()
	r.stepper.reqc.mu.Lock()
	defer r.stepper.reqc.mu.Unlock()
	for id, conv := range kept {
		if r.stepper.reqc.entries[id].conv != conv {
			t.Errorf("%s converted again by %s", id, what)
		}
	}
}
