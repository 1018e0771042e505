package loop

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/provider"
)

// The first print after a resume, with the warming's memo, is the print
// made by hashing every message (differential), and it does take the
// memo's hashes (a memo of wrong hashes shows in it).
func TestPrintWithTheWarmingsMemoIsThePrintWithout(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.r.state.history = longHistory(t, h, 300)
	sp := h.r.stepper
	conv := sp.prepare()
	req := sp.finishRequest(ctx, conv)
	pins, _ := sp.pinsNow()
	hist := sp.history()
	memo := memoOf(conv.enc)
	if memo.len() < 600 {
		t.Fatalf("memo of %d encodings, want the history's", memo.len())
	}
	want := printRequest(req, conv.systems, pins, conv.todo, hist, nil, nil)
	got := printRequest(req, conv.systems, pins, conv.todo, hist, nil, memo)
	if !reflect.DeepEqual(got.msgs, want.msgs) || got.system != want.system || got.tools.print() != want.tools.print() {
		t.Fatal("the print with the memo differs from the print without it")
	}
	wrong := &printMemo{enc: memo.enc, prints: make([]partPrint, len(memo.prints)), at: memo.at}
	for i, v := range memo.prints {
		wrong.prints[i] = partPrint{hash: v.hash + 1, bytes: v.bytes}
	}
	if bad := printRequest(req, conv.systems, pins, conv.todo, hist, nil, wrong); reflect.DeepEqual(bad.msgs, want.msgs) {
		t.Error("the memo's hashes are not used")
	}
}

// The memo's cursor: messages of the request's own between the memo's
// (the pins, the todo list, the new message) and the memo's in another
// order, or some left out, still give the print made without a memo; the
// memo's messages in its order are found by the cursor alone (a memo
// without its addresses still gives their hashes).
func TestPrintMemoCursorFollowsTheRequest(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.r.state.history = longHistory(t, h, 60)
	sp := h.r.stepper
	conv := sp.prepare()
	req := sp.finishRequest(ctx, conv)
	pins, _ := sp.pinsNow()
	hist := sp.history()
	n := len(conv.enc)
	if n < 100 {
		t.Fatalf("%d encodings, want the history's", n)
	}
	mixed := func(order func(enc [][]byte) [][]byte) *printMemo {
		return memoOf(order(slices.Clone(conv.enc)))
	}
	memos := map[string]*printMemo{
		"as sent":  memoOf(conv.enc),
		"reversed": mixed(func(e [][]byte) [][]byte { slices.Reverse(e); return e }),
		"halves swapped": mixed(func(e [][]byte) [][]byte {
			return append(slices.Clone(e[n/2:]), e[:n/2]...)
		}),
		"every third left out": mixed(func(e [][]byte) [][]byte {
			var out [][]byte
			for i, b := range e {
				if i%3 != 0 {
					out = append(out, b)
				}
			}
			return out
		}),
		"an extra message between": mixed(func(e [][]byte) [][]byte {
			return slices.Insert(e, n/2, []byte(`{"role":"user","content":"not sent"}`))
		}),
	}
	// The request's own messages between the memo's: a copy of the
	// request with a message of its own after every tenth.
	withOwn := req
	withOwn.Messages, withOwn.Encoded = nil, nil
	for i, m := range req.Messages {
		withOwn.Messages = append(withOwn.Messages, m)
		withOwn.Encoded = append(withOwn.Encoded, req.Encoded[i])
		if i%10 == 9 {
			own := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("own %d", i)}
			withOwn.Messages = append(withOwn.Messages, own)
			withOwn.Encoded = append(withOwn.Encoded, nil)
		}
	}
	for _, r := range []provider.Request{req, withOwn} {
		want := printRequest(r, conv.systems, pins, conv.todo, hist, nil, nil)
		for name, memo := range memos {
			got := printRequest(r, conv.systems, pins, conv.todo, hist, nil, memo)
			if !reflect.DeepEqual(got.msgs, want.msgs) || got.system != want.system {
				t.Errorf("memo %s: the print differs from the print without a memo", name)
			}
		}
		// The cursor alone: no addresses, the hashes made wrong.
		m := memoOf(conv.enc)
		for i := range m.prints {
			m.prints[i].hash++
		}
		m.at = nil
		got := printRequest(r, conv.systems, pins, conv.todo, hist, nil, m)
		hits := 0
		for i := range got.msgs {
			if got.msgs[i] != want.msgs[i] {
				hits++
			}
		}
		if hits < n-conv.systems {
			t.Errorf("the cursor found %d of the memo's %d messages", hits, n)
		}
	}
}

// BenchmarkFirstPrint10k is the first request's print after a resume of
// 10,000 parts with the warming's memo (settleRequest's share of Enter →
// request): found by the cursor (the memo in the request's order), and by
// address alone (the memo reversed: what each message cost before the
// cursor).
func BenchmarkFirstPrint10k(b *testing.B) {
	h := newHarness(b)
	h.r.state.history = longHistory(b, h, 2000)
	sp := h.r.stepper
	conv := sp.prepare()
	req := sp.finishRequest(context.Background(), conv)
	pins, _ := sp.pinsNow()
	hist := sp.history()
	reversed := slices.Clone(conv.enc)
	slices.Reverse(reversed)
	for name, memo := range map[string]*printMemo{"cursor": memoOf(conv.enc), "addresses": memoOf(reversed)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				printRequest(req, conv.systems, pins, conv.todo, hist, nil, memo)
			}
		})
	}
}

// The print's walk for the newest summary and the cleared outputs counts
// them all, hidden before a summary or not.
func TestSummaryAndCompactedCountsTheWholeHistory(t *testing.T) {
	h := newHarness(t)
	hist := longHistory(t, h, 50) // the outputs of the oldest 10 turns cleared
	hist[20].Message.Summary = true
	hist[40].Message.Summary = true
	summary, compacted := summaryAndCompacted(hist)
	if summary != hist[40].Message.ID || compacted != 10 {
		t.Fatalf("summary %q, compacted %d; want %q, 10", summary, compacted, hist[40].Message.ID)
	}
}
