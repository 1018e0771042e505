package loop

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// scriptedAnswers is a provider that answers each request with the next
// of its answers: an error before the stream, or a text and its usage.
type scriptedAnswers struct {
	mu       sync.Mutex
	answers  []scriptedAnswer
	requests []provider.Request
}

type scriptedAnswer struct {
	err   error
	text  string
	usage message.Usage
}

func (p *scriptedAnswers) Stream(_ context.Context, req provider.Request) (provider.Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	if len(p.answers) == 0 {
		return nil, errors.New("scriptedAnswers: no answer left")
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	if a.err != nil {
		return nil, a.err
	}
	u := a.usage
	return &eventStream{events: []provider.Event{
		{Type: provider.EventTextDelta, Text: a.text},
		{Type: provider.EventUsage, Usage: &u},
		{Type: provider.EventFinish, FinishReason: "stop"},
	}}, nil
}

// eventStream plays its events, then io.EOF.
type eventStream struct{ events []provider.Event }

func (s *eventStream) Recv() (provider.Event, error) {
	if len(s.events) == 0 {
		return provider.Event{}, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *eventStream) Close() error { return nil }

// summaryRig is a summariser over scripted answers; it counts what the
// summariser reserved, billed and waited for.
type summaryRig struct {
	s        *summariser
	p        *scriptedAnswers
	reserved []provider.Request
	billed   []message.Usage
	waits    []int // the attempts a retry followed
}

func newSummaryRig(t *testing.T, rig *compactorRig, answers ...scriptedAnswer) *summaryRig {
	t.Helper()
	sr := &summaryRig{p: &scriptedAnswers{answers: answers}}
	ledger := budget.New(0, 0)
	sr.s = newSummariser(summaryCalls{
		provider: sr.p,
		price:    rig.c.price,
		reserve: func(req provider.Request) (*budget.Reservation, error) {
			sr.reserved = append(sr.reserved, req)
			res, _, err := ledger.ReserveUpTo(0, 0, 1, 1)
			return res, err
		},
		bill: func(_ context.Context, _ string, u message.Usage) float64 {
			sr.billed = append(sr.billed, u)
			return 0.25
		},
		wait: func(_ context.Context, attempt int, _ time.Duration, _ error) error {
			sr.waits = append(sr.waits, attempt)
			return nil
		},
	})
	rig.c.sum = sr.s
	return sr
}

// A summary request that fails with a retryable error is retried after a
// wait; the answer's usage is billed once and added to what the summary
// spent, and the request was held against the cap before it went out.
func TestSummariserRetriesAndBills(t *testing.T) {
	rig := newCompactorRig(t, 100_000)
	sr := newSummaryRig(t, rig,
		scriptedAnswer{err: &provider.Error{Class: provider.ClassRetryable, StatusCode: 503, Message: "busy"}},
		scriptedAnswer{text: "the summary", usage: message.Usage{Input: 100, Output: 7}})
	var spent summaryCost
	req := provider.Request{Model: "m", MaxTokens: 50}
	text, err := sr.s.request(context.Background(), req, &summaryBudget{}, &spent)
	if err != nil || text != "the summary" {
		t.Fatalf("request = %q, %v; want the summary", text, err)
	}
	if len(sr.p.requests) != 2 || len(sr.waits) != 1 || sr.waits[0] != 1 {
		t.Fatalf("%d requests, waits after attempts %v; want 2 requests, one wait after attempt 1", len(sr.p.requests), sr.waits)
	}
	if len(sr.reserved) != 1 || len(sr.billed) != 1 || sr.billed[0].Output != 7 {
		t.Fatalf("reserved %d, billed %+v; want one reservation and the answer's usage billed once", len(sr.reserved), sr.billed)
	}
	if spent.usage.Output != 7 || spent.costUSD != 0.25 {
		t.Fatalf("spent = %+v, want the answer's usage and cost", spent)
	}
}

// A compaction the user asks for, on a compactor alone: the summariser's
// text becomes the summary after a marker, the range it replaced is no
// longer sent, and the busy period ends "compacted".
func TestCompactorSummarisesWithoutARunner(t *testing.T) {
	ctx := context.Background()
	rig := newCompactorRig(t, 8_000)
	rig.c.sent = func(h []message.Entry, _ bool) (int64, int64) { return sentChars(h) / 4, 0 }
	sr := newSummaryRig(t, rig, scriptedAnswer{text: "we talked about six things", usage: message.Usage{Input: 900, Output: 8}})
	for i := range 6 {
		rig.add(t, message.Message{Role: message.RoleUser}, message.Part{Type: message.PartText, Text: "question " + string(rune('a'+i))})
		rig.add(t, message.Message{Role: message.RoleAssistant, FinishReason: "stop"}, message.Part{Type: message.PartText, Text: strings.Repeat("answer ", 300)})
	}
	before := rig.c.requestEstimate(rig.hist.h)

	if err := rig.c.compactNow(ctx, compactRequest{reason: "manual"}); err != nil {
		t.Fatal(err)
	}
	if len(rig.released) != 1 || rig.released[0].FinishReason != "compacted" {
		t.Fatalf("released %+v, want one busy period ended compacted", rig.released)
	}
	if len(sr.p.requests) != 1 || len(sr.billed) != 1 {
		t.Fatalf("%d summary requests, %d billed; want one of each", len(sr.p.requests), len(sr.billed))
	}
	sum, mark := summaryEntries(rig.hist.h)
	if sum < 0 || mark < 0 {
		t.Fatalf("no summary and marker in the history (%d, %d)", sum, mark)
	}
	if body := joinText(rig.hist.h[sum].Parts, message.PartText); !strings.Contains(body, "we talked about six things") {
		t.Fatalf("summary body %q does not carry the summariser's text", body)
	}
	if st := rig.hist.h[mark].Parts[0].Compaction; st.Outcome != message.CompactionSummary || st.Model != "m" {
		t.Fatalf("marker state = %+v, want a summary by m", *st)
	}
	if m := rig.hist.h[sum].Message; m.Usage.Output != 8 || m.CostUSD != 0.25 {
		t.Fatalf("summary message usage %+v cost %v, want the request's", m.Usage, m.CostUSD)
	}
	if after := rig.c.requestEstimate(rig.hist.h); after >= before {
		t.Fatalf("request after the compaction %d, want below %d", after, before)
	}
}
